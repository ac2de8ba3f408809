import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { databaseUrl, testDb } from "../../test/db";
import { textPart } from "../../test/fixtures";
import * as Id from "../id";
import { PartUpdated } from "../session/events";
import type { Part } from "../session/message";
import { Bus, type Envelope, define } from "./bus";
import { type Bridge, CHANNEL, HELLO_WAIT_MS, LINGER_MS, bridge, everyEvent } from "./postgres";

/** Server coordination (no audience), like runner.sync. */
const Coordinate = define("test.bridge.coordinate", z.object({ sessionId: z.string() }));

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("PostgreSQL bus bridge (integration)", () => {
  const a = new Bus();
  const b = new Bus();
  const problems: string[] = [];
  // The bridge's lines as the server's logger prints them (scope "bus").
  const log = (message: string, error?: unknown) => problems.push(`[bus] ${message}: ${String(error)}`);
  let bridges: Bridge[] = [];

  beforeAll(async () => {
    bridges = await Promise.all([bridge(a, databaseUrl(), { log }), bridge(b, databaseUrl(), { log })]);
  });
  afterAll(async () => {
    await Promise.all(bridges.map((link) => link.close()));
  });

  /** A fresh team scope with recorders on both buses. */
  function scope() {
    const teamId = Id.ascending("team");
    const sessionId = Id.descending("session");
    const onA: Envelope[] = [];
    const onB: Envelope[] = [];
    a.subscribe({ teamId }, (e) => onA.push(e));
    b.subscribe({ teamId }, (e) => onB.push(e));
    const part = (text: string): Part => textPart(sessionId, Id.ascending("message"), text);
    return { teamId, sessionId, onA, onB, part, where: { teamId, sessionId } };
  }

  it("carries an event from one instance to another, once, and not back to its sender", async () => {
    const s = scope();
    const sent = a.publish(PartUpdated, { part: s.part("hello"), delta: "hello" }, s.where);
    await until(() => s.onB.length >= 1, "the event on bus B");
    expect(s.onB).toEqual([sent]);
    // A marker sent back from B after it got the event arrives at A after any echo would have.
    const marker = b.publish(PartUpdated, { part: s.part("marker") }, s.where);
    await until(() => s.onA.length >= 2, "the marker on bus A");
    expect(s.onA).toEqual([sent, marker]);
    expect(s.onB).toEqual([sent, marker]);
    expect(problems).toEqual([]);
  });

  it("carries a payload larger than NOTIFY's 8000-byte limit intact", async () => {
    const s = scope();
    const text = Array.from({ length: 20 * 1024 }, (_, i) => "abcdefghijklmnopqrstuvwxyzé€😀"[i % 29]).join("");
    const parkedBefore = await testDb().eventPayload.count();
    const sent = a.publish(PartUpdated, { part: s.part(text), delta: text.slice(-100) }, s.where);
    await until(() => s.onB.length >= 1, "the large event on bus B");
    expect(s.onB[0]).toEqual(sent);
    expect((s.onB[0]?.payload as { part: { text: string } }).part.text).toBe(text);
    // It went through the parked-payload path.
    expect(await testDb().eventPayload.count()).toBeGreaterThan(parkedBefore);
    expect(problems).toEqual([]);
  });

  it("delivers a burst of 200 events, small and large, in publish order", async () => {
    const s = scope();
    const sent: Envelope[] = [];
    for (let i = 0; i < 200; i++) {
      const text = i % 50 === 7 ? `${i}:${"x".repeat(9000)}` : `${i}`;
      sent.push(a.publish(PartUpdated, { part: s.part(text), delta: String(i) }, s.where));
    }
    await until(() => s.onB.length >= 200, "200 events on bus B", 20_000);
    expect(s.onB.map((e) => e.id)).toEqual(sent.map((e) => e.id));
    expect(s.onB).toEqual(sent);
    expect(s.onA).toHaveLength(200);
    expect(problems).toEqual([]);
  });

  it("flush resolves after every event was handed to PostgreSQL, and a closed bridge forwards nothing", async () => {
    const c = new Bus();
    const link = await bridge(c, databaseUrl(), { log });
    const s = scope();
    c.publish(PartUpdated, { part: s.part("before close") }, s.where);
    await link.flush();
    await link.close();
    await until(() => s.onB.length >= 1, "the event flushed before close");
    c.publish(PartUpdated, { part: s.part("after close") }, s.where);
    const marker = a.publish(PartUpdated, { part: s.part("marker") }, s.where);
    await until(() => s.onB.length >= 2, "the marker");
    expect(s.onB.map((e) => (e.payload as { part: { text: string } }).part.text)).toEqual(["before close", "marker"]);
    expect(s.onB[1]).toEqual(marker);
    expect(problems).toEqual([]);
  });

  it("closes cleanly while events from another instance are still arriving", async () => {
    const c = new Bus();
    const link = await bridge(c, databaseUrl(), { log });
    const s = scope();
    const onC: Envelope[] = [];
    c.subscribe({ teamId: s.teamId }, (e) => onC.push(e));
    for (let i = 0; i < 400; i++) a.publish(PartUpdated, { part: s.part(i % 20 === 0 ? "y".repeat(8000) : `${i}`) }, s.where);
    await until(() => onC.length >= 20, "the first events on bus C");
    await link.close();
    const received = onC.length;
    await until(() => s.onB.length >= 400, "the burst on bus B", 20_000);
    expect(onC.length).toBe(received);
    expect(problems).toEqual([]);
  });

  it("reconnects after its connections are killed, sends what was published meanwhile, and receives again", async () => {
    const c = new Bus();
    const name = `parley-bus-test-${Id.ascending("team")}`;
    const lines: string[] = [];
    let reconnects = 0;
    const link = await bridge(c, databaseUrl(), {
      name,
      retry: { initialMs: 20, maxMs: 200 },
      // The bridge's lines as the server's logger prints them (scope "bus").
      log: (message) => lines.push(`[bus] ${message}`),
      onReconnect: () => reconnects++,
    });
    try {
      const s = scope();
      const onC: Envelope[] = [];
      c.subscribe({ teamId: s.teamId }, (e) => onC.push(e));
      c.publish(PartUpdated, { part: s.part("before") }, s.where);
      await until(() => s.onB.length >= 1, "the first event on bus B");

      const killed = await testDb().$queryRawUnsafe<{ n: bigint }[]>(
        "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = $1",
        name,
      );
      expect(Number(killed[0]?.n)).toBe(2);
      await until(() => lines.some((l) => l.startsWith("[bus] lost the database connection")), "the loss to be noticed");
      // Published while the connection is down (or coming back): kept and sent after.
      c.publish(PartUpdated, { part: s.part("while away") }, s.where);
      c.publish(PartUpdated, { part: s.part("y".repeat(9000)) }, s.where);
      await until(() => lines.includes("[bus] reconnected to the database"), "the reconnection");
      await link.flush();
      await until(() => s.onB.length >= 3, "the events published while away");
      expect(s.onB.map((e) => (e.payload as { part: { text: string } }).part.text.slice(0, 10))).toEqual(["before", "while away", "yyyyyyyyyy"]);

      // Listening again: what another instance publishes arrives.
      b.publish(PartUpdated, { part: s.part("after") }, s.where);
      await until(() => onC.some((e) => (e.payload as { part: { text: string } }).part.text === "after"), "an event from bus B after the reconnection");
      expect(lines.filter((l) => l.startsWith("[bus] lost"))).toHaveLength(1);
      // The server is told, so it can make its browsers resync what they may have missed.
      expect(reconnects).toBe(1);
      // One line per loss, with the database's reason, not a dump of the error object.
      expect(lines[0]).toMatch(/^\[bus\] lost the database connection \(.*\); reconnecting$/);
    } finally {
      await link.close();
    }
    expect(problems).toEqual([]);
  });

  it("carries server-internal events to the other instances' own machinery, never to their subscribers", async () => {
    const s = scope();
    const system: Envelope[] = [];
    const unhook = b.subscribeAll((e) => (e.scope.teamId === s.teamId ? system.push(e) : undefined));
    try {
      const internal = a.publish(Coordinate, { sessionId: s.sessionId }, s.where);
      const marker = a.publish(PartUpdated, { part: s.part("marker") }, s.where);
      await until(() => s.onB.length >= 1, "the marker on bus B");
      expect(system).toEqual([internal, marker]);
      expect(s.onB).toEqual([marker]);
      expect(problems).toEqual([]);
    } finally {
      unhook();
    }
  });

  it("skips an internal event this process never defined, and reports an unknown client event", async () => {
    const s = scope();
    const body = (name: string, internal: boolean) => ({ id: Id.ascending("team"), name, payload: {}, scope: s.where, time: 1, ...(internal ? { internal } : {}) });
    const notify = (name: string, internal: boolean) =>
      testDb().$executeRawUnsafe("SELECT pg_notify($1, $2)", CHANNEL, JSON.stringify({ o: "another-process", es: [body(name, internal)] }));
    await notify("test.bridge.elsewhere", true);
    await notify("test.bridge.unknown", false);
    const marker = a.publish(PartUpdated, { part: s.part("after both") }, s.where);
    await until(() => s.onB.length >= 1 && s.onA.length >= 1 && problems.length >= 2, "the marker on both buses and both reports");
    expect(s.onB).toEqual([marker]);
    const reported = problems.splice(0);
    expect(reported.filter((line) => line.startsWith("[bus] dropped an event from another instance"))).toHaveLength(2);
    expect(reported.filter((line) => line.includes("test.bridge.unknown"))).toHaveLength(2);
    expect(reported.some((line) => line.includes("test.bridge.elsewhere"))).toBe(false);
  });
  it("sends optional events (streamed deltas) only while another instance listens; a new instance's hello starts them", async () => {
    const name = `parley-bus-optional-${Id.ascending("team")}`;
    const optional = (e: Envelope) => (e.payload as { delta?: unknown }).delta !== undefined;
    // What reaches PostgreSQL, seen by a plain listener (not a bridge: not another instance).
    const watcher = new pg.Client({ connectionString: databaseUrl() });
    await watcher.connect();
    const notified: string[] = [];
    watcher.on("notification", (message) => notified.push(message.payload ?? ""));
    await watcher.query(`LISTEN ${CHANNEL}`);
    const x = new Bus();
    const y = new Bus();
    const lx = await bridge(x, databaseUrl(), { log, name, optional });
    let ly: Bridge | undefined;
    try {
      const s = scope();
      x.publish(PartUpdated, { part: s.part("alone"), delta: "alone" }, s.where);
      x.publish(PartUpdated, { part: s.part("full part") }, s.where);
      await lx.flush();
      await until(() => notified.some((n) => n.includes("full part")), "the full part in PostgreSQL");
      expect(notified.some((n) => n.includes("alone"))).toBe(false);

      const onY: Envelope[] = [];
      y.subscribe({ teamId: s.teamId }, (e) => onY.push(e));
      ly = await bridge(y, databaseUrl(), { log, name, optional });
      // Once X has heard Y's hello, X's deltas reach Y.
      for (let i = 0; !onY.some((e) => optional(e)); i++) {
        if (i > 200) throw new Error("no delta reached the second instance");
        x.publish(PartUpdated, { part: s.part(`together ${i}`), delta: `${i}` }, s.where);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(problems).toEqual([]);
    } finally {
      await Promise.all([lx.close(), ly?.close(), watcher.end()]);
    }
  });

  it("as a server runs it (every event optional): a lone instance NOTIFYs nothing but its hello; a new instance gets every event published once its bridge is connected", async () => {
    const name = `parley-bus-every-${Id.ascending("team")}`;
    const watcher = new pg.Client({ connectionString: databaseUrl() });
    await watcher.connect();
    const notified: string[] = [];
    watcher.on("notification", (message) => notified.push(message.payload ?? ""));
    await watcher.query(`LISTEN ${CHANNEL}`);
    const open: Bridge[] = [];
    try {
      const s = scope();
      const x = new Bus();
      open.push(await bridge(x, databaseUrl(), { log, name, optional: everyEvent }));
      x.publish(PartUpdated, { part: s.part("nobody listens") }, s.where);
      await open[0]?.flush();
      // A round trip through PostgreSQL: the watcher has everything NOTIFYed before it (the
      // marker is a valid message for the other tests' bridges: an answer to nobody's hello).
      const marker = '{"o":"watcher","h":2}';
      await watcher.query("SELECT pg_notify($1, $2)", [CHANNEL, marker]);
      await until(() => notified.includes(marker), "the marker");
      const fromX = notified.filter((n) => n.startsWith(`{"o":${JSON.stringify(x.instanceId)}`));
      expect(fromX).toEqual([`{"o":${JSON.stringify(x.instanceId)},"h":1,"n":${JSON.stringify(name)}}`]);
      await Promise.all(open.splice(0).map((b) => b.close()));

      // Each round, a lone instance X and a new one Y: the first event X publishes once Y's
      // bridge is connected reaches Y (X answered Y's hello before; without that wait, X
      // could still think it is alone and skip it).
      for (let round = 0; round < 6; round++) {
        const x = new Bus();
        const y = new Bus();
        const onY: string[] = [];
        y.subscribe({ teamId: s.teamId }, (e) => onY.push((e.payload as { part: Part }).part.id));
        open.push(await bridge(x, databaseUrl(), { log, name, optional: everyEvent }));
        open.push(await bridge(y, databaseUrl(), { log, name, optional: everyEvent }));
        const part = s.part(`round ${round}`);
        x.publish(PartUpdated, { part }, s.where);
        await until(() => onY.includes(part.id), `round ${round}'s event on the new instance`, 3_000);
        await Promise.all(open.splice(0).map((b) => b.close()));
      }
      expect(problems).toEqual([]);
    } finally {
      await Promise.all([...open.map((b) => b.close()), watcher.end()]);
    }
  });

  it("a new instance waits for its own peers' answers: an answer to another instance's hello, or from bridges of another name, does not count", async () => {
    const name = `parley-bus-answers-${Id.ascending("team")}`;
    // A peer of the same name that has not heard the new instance yet (slow, or still
    // starting): its two connections are there, its answer is not. Meanwhile an unrelated
    // answer (to some other instance's hello) arrives at once after each hello, and the
    // suite's own bridges (another name) are listening too.
    const silent = await Promise.all([0, 1].map(() => new pg.Client({ connectionString: databaseUrl(), application_name: name })));
    await Promise.all(silent.map((c) => c.connect()));
    const [answerer] = silent;
    if (!answerer) throw new Error("no client");
    answerer.on("notification", (message) => {
      if (message.payload?.includes('"h":1')) void answerer.query("SELECT pg_notify($1, $2)", [CHANNEL, '{"o":"elsewhere","h":2,"to":"another-new-instance"}']);
    });
    await answerer.query(`LISTEN ${CHANNEL}`);
    let y: Bridge | undefined;
    try {
      const started = performance.now();
      y = await bridge(new Bus(), databaseUrl(), { log, name, optional: everyEvent });
      // It waited for the silent peer (until HELLO_WAIT_MS), instead of taking the first
      // answer it heard and missing that peer's events until it answers.
      expect(performance.now() - started).toBeGreaterThanOrEqual(HELLO_WAIT_MS - 50);
      expect(problems).toEqual([]);
    } finally {
      await Promise.all([y?.close(), ...silent.map((c) => c.end())]);
    }
  });

  it("sends a stream of events in NOTIFYs at least LINGER_MS apart: what comes meanwhile goes out together, in order", async () => {
    const watcher = new pg.Client({ connectionString: databaseUrl() });
    await watcher.connect();
    const x = new Bus();
    const lx = await bridge(x, databaseUrl(), { log });
    try {
      const s = scope();
      const mine = `{"o":${JSON.stringify(x.instanceId)}`;
      const notifies: string[] = [];
      watcher.on("notification", (message) => {
        if (message.payload?.startsWith(mine)) notifies.push(message.payload);
      });
      await watcher.query(`LISTEN ${CHANNEL}`);
      // An event after a quiet moment goes out at once.
      x.publish(Coordinate, { sessionId: "first" }, s.where);
      await until(() => notifies.length === 1, "the first NOTIFY");
      await new Promise((resolve) => setTimeout(resolve, 3 * LINGER_MS));
      // Then 200 events over about 200 ms.
      const started = performance.now();
      for (let i = 0; i < 200; i++) {
        x.publish(Coordinate, { sessionId: `s${i}` }, s.where);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await lx.flush();
      const took = performance.now() - started;
      await until(() => notifies.join("").includes('"s199"'), "the last event");
      const burst = notifies.slice(1);
      expect(burst.length).toBeLessThanOrEqual(Math.ceil(took / LINGER_MS) + 2);
      const order = burst.flatMap((n) => [...n.matchAll(/"sessionId":"(s\d+)"/g)].map((m) => m[1]));
      expect(order).toEqual(Array.from({ length: 200 }, (_, i) => `s${i}`));
      expect(problems).toEqual([]);
    } finally {
      await Promise.all([lx.close(), watcher.end()]);
    }
  });
});
