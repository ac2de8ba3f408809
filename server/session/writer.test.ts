import { describe, expect, it } from "vitest";
import { Bus, type Envelope } from "../bus/bus";
import type { Db } from "../db/client";
import * as Id from "../id";
import type { AssistantMessage, Part } from "./message";
import { emptyTokens } from "./message";
import { StreamedWrites, TurnWriter } from "./writer";
import type { Services } from "../services";

/** TurnWriter with an in-memory stand-in for the Prisma calls it makes. */

interface Write {
  op: "part" | "message" | "delete";
  id: string;
  text?: string;
  at: number;
  /** Which statement wrote it (parts written together share one). */
  statement?: number;
}

function fakeDb(options: { failPart?: (id: string) => boolean; failMessage?: () => boolean; slowMs?: number } = {}) {
  const writes: Write[] = [];
  let statements = 0;
  const pause = () => new Promise((resolve) => setTimeout(resolve, options.slowMs ?? 0));
  const db = {
    // Store.persistParts: one statement, the rows as JSON; Store.writeMessage: an upsert of one message.
    $executeRaw: async (sql: TemplateStringsArray, ...values: unknown[]) => {
      if (sql.join("?").includes('INSERT INTO "Message"')) {
        if (options.failMessage?.()) throw new Error("message write failed");
        writes.push({ op: "message", id: String(values[0]), at: Date.now() });
        return 1;
      }
      await pause();
      const rows = String(values[0]);
      const parsed = JSON.parse(rows) as { id: string; data: { text?: string } }[];
      if (parsed.some((row) => options.failPart?.(row.id))) throw new Error("part write failed");
      const statement = ++statements;
      for (const row of parsed) writes.push({ op: "part", id: row.id, text: row.data.text, at: Date.now(), statement });
      return parsed.length;
    },
    part: {
      deleteMany: async (args: { where: { id: string } }) => {
        writes.push({ op: "delete", id: args.where.id, at: Date.now() });
        return { count: 1 };
      },
    },
  };
  return { db: db as unknown as Db, writes };
}

const sessionId = Id.ascending("session");
const messageId = Id.ascending("message");
const text = (id: string, value: string): Part => ({ id, sessionId, messageId, type: "text", text: value, time: { start: 1 } });
const message: AssistantMessage = {
  id: messageId,
  sessionId,
  role: "assistant",
  parentId: Id.ascending("message"),
  providerId: "p",
  modelId: "m",
  agent: "build",
  path: { cwd: "/", root: "/" },
  cost: 0,
  tokens: emptyTokens(),
  time: { created: 1 },
};

function setup(db: Db, flushMs = 40, windowMs = 0) {
  const bus = new Bus();
  const events: Envelope[] = [];
  bus.subscribe({ teamId: "team", sessionId }, (e) => events.push(e));
  // TurnWriter uses the database, the bus, the shared streamed writes and the settings of its services.
  const services = { db, bus, streamedWrites: new StreamedWrites(db, flushMs), settings: { flushMs, streamWindowMs: windowMs } } as unknown as Services;
  return { services, writer: new TurnWriter(services, "team"), events };
}

const deltas = (events: Envelope[]) => events.map((e) => (e.payload as { delta?: string }).delta);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait for a condition (a loaded machine runs timers late), failing after a generous deadline. */
async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(10);
  }
}

describe("TurnWriter", () => {
  describe("write: one durability per change (the table in writer.ts)", () => {
    it("'now': stored when the call resolves, in a statement of its own, and published before", async () => {
      const { db, writes } = fakeDb({ slowMs: 10 });
      const { writer, events } = setup(db, 10_000);
      const id = Id.ascending("part");
      const written = writer.write(text(id, "done"), "now");
      expect(events.map((e) => e.name)).toEqual(["message.part.updated"]);
      expect(writes).toHaveLength(0);
      await written;
      expect(writes).toEqual([{ op: "part", id, text: "done", at: expect.any(Number), statement: 1 }]);
    });

    it("'next': not stored on a timer, but with the turn's next write", async () => {
      const { db, writes } = fakeDb();
      const { writer, events } = setup(db, 20);
      const input = Id.ascending("part");
      const end = Id.ascending("part");
      expect(writer.write(text(input, "{\"path\":"), "next", "")).toBeUndefined();
      // Published as a streamed change at once (nothing held yet), stored by no batcher.
      expect(deltas(events)).toEqual([""]);
      await sleep(80);
      expect(writes).toHaveLength(0);
      await writer.write(text(end, "result"), "now");
      expect(writes.map((w) => [w.id, w.statement])).toEqual([
        [input, 1],
        [end, 1],
      ]);
    });

    it("'next' is stored with the batcher too, when the turn has a batched change", async () => {
      const { db, writes } = fakeDb();
      const { writer } = setup(db, 20);
      const input = Id.ascending("part");
      const opened = Id.ascending("part");
      writer.write(text(input, "{"), "next", "");
      writer.write(text(opened, ""), "batched");
      await until(() => writes.length >= 2);
      expect(writes.map((w) => [w.id, w.statement])).toEqual([
        [input, 1],
        [opened, 1],
      ]);
    });

    it("'batched': not stored when the call returns, stored by the batcher within flushMs; without a delta published at once", async () => {
      const { db, writes } = fakeDb();
      const { writer, events } = setup(db, 30, 1_000);
      const id = Id.ascending("part");
      const started = Date.now();
      expect(writer.write(text(id, ""), "batched")).toBeUndefined();
      writer.write(text(id, "a"), "batched", "a");
      writer.write(text(id, "ab"), "batched", "b");
      // The opening and the first delta went at once; the second is held for the part's window.
      expect(deltas(events)).toEqual([undefined, "a"]);
      expect(writes).toHaveLength(0);
      await until(() => writes.length >= 1);
      expect(writes).toEqual([{ op: "part", id, text: "ab", at: expect.any(Number), statement: 1 }]);
      expect((writes[0]?.at ?? 0) - started).toBeLessThan(1_000);
      // Storing does not publish: the held delta still waits for its window (or the turn's next publish).
      expect(deltas(events)).toEqual([undefined, "a"]);
      await writer.flush();
      expect(deltas(events)).toEqual([undefined, "a", "b"]);
    });
  });

  it("publishes every delta at once and persists a burst of deltas once, within flushMs", async () => {
    const { db, writes } = fakeDb();
    const { writer, events } = setup(db, 40);
    const id = Id.ascending("part");
    const started = Date.now();
    writer.write(text(id, "a"), "batched", "a");
    writer.write(text(id, "ab"), "batched", "b");
    writer.write(text(id, "abc"), "batched", "c");
    expect(deltas(events)).toEqual(["a", "b", "c"]);
    expect(writes).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(writes).toEqual([{ op: "part", id, text: "abc", at: expect.any(Number), statement: 1 }]);
    expect((writes[0]?.at ?? 0) - started).toBeLessThan(200);
  });

  it("a change without delta persists at once, after the pending deltas, in order", async () => {
    const { db, writes } = fakeDb();
    const { writer } = setup(db, 10_000);
    const a = Id.ascending("part");
    const b = Id.ascending("part");
    writer.write(text(a, "streamed"), "batched", "streamed");
    await writer.write(text(b, "final"), "now");
    expect(writes.map((w) => [w.id, w.text])).toEqual([
      [a, "streamed"],
      [b, "final"],
    ]);
  });

  it("removing a part drops its pending write", async () => {
    const { db, writes } = fakeDb();
    const { writer, events } = setup(db, 10_000);
    const a = Id.ascending("part");
    writer.write(text(a, "half"), "batched", "half");
    await writer.removePart(text(a, "half"));
    await writer.flush();
    expect(writes.map((w) => w.op)).toEqual(["delete"]);
    expect(events.at(-1)?.name).toBe("message.part.removed");
  });

  it("writes stay in call order even when a write is slow", async () => {
    const { db, writes } = fakeDb({ slowMs: 15 });
    const { writer } = setup(db, 5);
    const a = Id.ascending("part");
    writer.write(text(a, "x"), "batched", "x");
    await new Promise((resolve) => setTimeout(resolve, 8)); // the timer flush is now in flight
    await writer.message(message);
    await writer.write(text(a, "xy"), "now");
    expect(writes.map((w) => w.op + (w.text ?? ""))).toEqual(["partx", "message", "partxy"]);
  });

  it("changes flushed while a write is under way share the next statement, and each caller waits for its own change", async () => {
    const { db, writes } = fakeDb({ slowMs: 20 });
    const { writer } = setup(db, 10_000);
    const first = Id.ascending("part");
    const results = Array.from({ length: 10 }, () => Id.ascending("part"));
    const written = (id: string) => writes.some((w) => w.id === id);
    const flushed: boolean[] = [];
    const firstWrite = writer.write(text(first, "first"), "now");
    await sleep(2); // its statement is under way
    // Ten tool results at once, while the first statement runs: each resolves only once its row is stored.
    const all = results.map((id, i) => writer.write(text(id, `result ${i}`), "now").then(() => flushed.push(written(id))));
    await Promise.all([firstWrite, ...all]);
    expect(flushed).toEqual(results.map(() => true));
    expect(writes.map((w) => w.id)).toEqual([first, ...results]);
    expect(new Set(writes.map((w) => w.statement))).toEqual(new Set([1, 2]));
  });

  it("a flush never joins a statement queued before another write, so writes keep their order", async () => {
    const { db, writes } = fakeDb({ slowMs: 15 });
    const { writer } = setup(db, 10_000);
    const a = Id.ascending("part");
    const b = Id.ascending("part");
    const c = Id.ascending("part");
    const pending = [writer.write(text(a, "a"), "now")];
    await sleep(2); // a's statement is under way
    pending.push(writer.write(text(b, "b"), "now"));
    pending.push(writer.message(message));
    pending.push(writer.write(text(c, "c"), "now"));
    await Promise.all(pending);
    expect(writes.map((w) => w.op + (w.text ?? ""))).toEqual(["parta", "partb", "message", "partc"]);
    // a's statement was running when b came: b waited for the next one, which c could not join past the message.
    expect(writes.map((w) => w.statement ?? 0)).toEqual([1, 2, 0, 3]);
  });

  it("a failed shared statement fails every flush that joined it", async () => {
    const bad = Id.ascending("part");
    const { db } = fakeDb({ slowMs: 10, failPart: (id) => id === bad });
    const { writer } = setup(db, 10_000);
    const first = writer.write(text(Id.ascending("part"), "ok"), "now");
    await sleep(2); // its statement is under way
    const joined = [writer.write(text(Id.ascending("part"), "with"), "now"), writer.write(text(bad, "refused"), "now")];
    await expect(first).resolves.toBeUndefined();
    await Promise.all(joined.map((flush) => expect(flush).rejects.toThrow("part write failed")));
    await expect(writer.flush()).resolves.toBeUndefined();
  });

  it("a failed write is reported once, to its caller; later writes go on", async () => {
    let fail = true;
    const { db, writes } = fakeDb({ failMessage: () => fail });
    const { writer } = setup(db, 10_000);
    await expect(writer.message(message)).rejects.toThrow("message write failed");
    fail = false;
    await expect(writer.flush()).resolves.toBeUndefined();
    await writer.write(text(Id.ascending("part"), "after"), "now");
    await writer.message(message);
    expect(writes.map((w) => w.op)).toEqual(["part", "message"]);
  });

  it("a failed background flush of deltas is reported by the next flush, once", async () => {
    let fail = true;
    const { db } = fakeDb({ failPart: () => fail });
    const { writer } = setup(db, 5);
    writer.write(text(Id.ascending("part"), "lost?"), "batched", "lost?");
    await new Promise((resolve) => setTimeout(resolve, 40));
    fail = false;
    await expect(writer.flush()).rejects.toThrow("part write failed");
    await expect(writer.flush()).resolves.toBeUndefined();
  });

  it("holds the deltas of a part that come within its window and sends them as one event at its end", async () => {
    const { db } = fakeDb();
    const { writer, events } = setup(db, 10_000, 30);
    const id = Id.ascending("part");
    writer.write(text(id, "a"), "batched", "a");
    writer.write(text(id, "ab"), "batched", "b");
    writer.write(text(id, "abc"), "batched", "c");
    // The first went at once; the next two wait for the window.
    expect(deltas(events)).toEqual(["a"]);
    await sleep(60);
    expect(deltas(events)).toEqual(["a", "bc"]);
    const last = events.at(-1)?.payload as { part: { text: string } };
    expect(last.part.text).toBe("abc");
  });

  it("sends deltas further apart than the window at once, and releases held ones before any other change", async () => {
    const { db } = fakeDb();
    const { writer, events } = setup(db, 10_000, 20);
    const a = Id.ascending("part");
    writer.write(text(a, "x"), "batched", "x");
    await sleep(30);
    writer.write(text(a, "xy"), "batched", "y");
    expect(deltas(events)).toEqual(["x", "y"]);
    writer.write(text(a, "xyz"), "batched", "z");
    expect(deltas(events)).toEqual(["x", "y"]);
    // The part's end (no delta) comes after the held delta, and nothing is sent twice.
    await writer.write(text(a, "xyz!"), "now");
    expect(deltas(events)).toEqual(["x", "y", "z", undefined]);
    await sleep(40);
    expect(events).toHaveLength(4);
  });

  it("persists the streamed changes of several turns in one statement", async () => {
    const { db, writes } = fakeDb();
    const { services, writer } = setup(db, 20);
    const other = new TurnWriter(services, "team");
    const a = Id.ascending("part");
    const b = Id.ascending("part");
    writer.write(text(a, "one"), "batched", "one");
    other.write(text(b, "two"), "batched", "two");
    await until(() => writes.length >= 2);
    expect(writes.map((w) => [w.id, w.text])).toEqual([
      [a, "one"],
      [b, "two"],
    ]);
    expect(new Set(writes.map((w) => w.statement)).size).toBe(1);
  });

  it("when the shared statement fails, each turn's changes are written on their own and only the failing turn reports it", async () => {
    const bad = Id.ascending("part");
    const { db, writes } = fakeDb({ failPart: (id) => id === bad });
    const { services, writer } = setup(db, 20);
    const other = new TurnWriter(services, "team");
    const good = Id.ascending("part");
    writer.write(text(good, "kept"), "batched", "kept");
    other.write(text(bad, "refused"), "batched", "refused");
    await sleep(60);
    expect(writes.map((w) => [w.id, w.text])).toEqual([[good, "kept"]]);
    await expect(writer.flush()).resolves.toBeUndefined();
    await expect(other.flush()).rejects.toThrow("part write failed");
  });
});
