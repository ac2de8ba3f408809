import { describe, expect, it } from "vitest";
import { Bus, type Envelope, is } from "../bus/bus";
import type { Part } from "./message";
import { RetryRequested, Runners, SyncRequested, Synced } from "./runner";

/** A sync request is answered with the parts being streamed, for the asking stream only. */
describe("Runners: answering a stream's sync request", () => {
  const teamId = "team_1";
  const text = (sessionId: string): Part => ({ id: "prt_1", sessionId, messageId: "msg_1", type: "text", text: "the whole answer so far", time: { start: 1 } });

  function setup() {
    const bus = new Bus();
    const runners = new Runners(bus);
    runners.add({ sessionId: "ses_a", abort: new AbortController(), done: Promise.resolve(), current: { streamingParts: () => [text("ses_a")] } });
    runners.add({ sessionId: "ses_idle", abort: new AbortController(), done: Promise.resolve() });
    const seen: Envelope[] = [];
    const forwarded: Envelope[] = [];
    const clients: Envelope[] = [];
    bus.subscribeAll((event) => (is(event, Synced) ? seen.push(event) : undefined));
    bus.onPublish((event) => (is(event, Synced) ? forwarded.push(event) : undefined));
    bus.subscribe({ teamId }, (event) => clients.push(event));
    return { bus, seen, forwarded, clients };
  }

  it("a stream open on this instance gets the parts here, never through the other instances nor any other client", () => {
    const { bus, seen, forwarded, clients } = setup();
    bus.publish(SyncRequested, { sessionIds: ["ses_a", "ses_idle", "ses_elsewhere"], connection: "c1", instance: bus.instanceId }, { teamId });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ scope: { teamId, sessionId: "ses_a" }, payload: { connection: "c1", parts: [{ id: "prt_1", text: "the whole answer so far" }] } });
    expect(forwarded).toEqual([]);
    expect(clients).toEqual([]);
  });

  it("a stream open on another instance gets them through the bridge (published), addressed to it", () => {
    const { bus, seen, forwarded, clients } = setup();
    bus.deliver({ id: "e1", name: SyncRequested.name, payload: { sessionIds: ["ses_a"], connection: "c2", instance: "another-instance" }, scope: { teamId }, time: 1 });
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]).toMatchObject({ payload: { connection: "c2", parts: [{ id: "prt_1" }] } });
    expect(seen).toEqual(forwarded);
    expect(clients).toEqual([]);
  });
});

/** A retry's wait: its timer, or a member's "Retry now" / "Stop retrying" (the first one wins), or the turn's abort. */
describe("Runners: the wait before a retry", () => {
  const scope = { teamId: "team_1", sessionId: "ses_r" };

  it("ends on its timer when nobody asks; a request afterwards finds no wait", async () => {
    const runners = new Runners(new Bus());
    await expect(runners.waitToRetry("ses_r", 10, new AbortController().signal)).resolves.toBe("timer");
    expect(runners.controlRetry("ses_r", "now")).toBe(false);
  });

  it("a request published on the bus ends it at once; the first request wins", async () => {
    const bus = new Bus();
    const runners = new Runners(bus);
    const started = Date.now();
    const waiting = runners.waitToRetry("ses_r", 60_000, new AbortController().signal);
    bus.publish(RetryRequested, { sessionId: "ses_r", action: "stop" }, scope);
    bus.publish(RetryRequested, { sessionId: "ses_r", action: "now" }, scope);
    await expect(waiting).resolves.toBe("stop");
    expect(Date.now() - started).toBeLessThan(5_000);
    // Another session's request does not touch it.
    const other = runners.waitToRetry("ses_r", 50, new AbortController().signal);
    bus.publish(RetryRequested, { sessionId: "ses_other", action: "now" }, { ...scope, sessionId: "ses_other" });
    await expect(other).resolves.toBe("timer");
  });

  it("Retry now ends it with 'now'; an abort rejects it, even with a request in the same tick", async () => {
    const runners = new Runners(new Bus());
    const now = runners.waitToRetry("ses_r", 60_000, new AbortController().signal);
    expect(runners.controlRetry("ses_r", "now")).toBe(true);
    await expect(now).resolves.toBe("now");

    const abort = new AbortController();
    const aborted = runners.waitToRetry("ses_r", 60_000, abort.signal);
    abort.abort("Aborted by the user");
    runners.controlRetry("ses_r", "stop");
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
  });
});
