import { describe, expect, it } from "vitest";
import type { PageInput } from "@/components/chat/store";
import type { LiveEvent } from "@/components/events/use-event-source";
import { liveEvent } from "@/test/live-event";
import type { Status } from "@/server/session/events";
import type { Info } from "@/server/session/info";
import type { WithParts } from "@/server/session/message";
import { LiveController, PAGE_SIZE } from "./controller";
import type { LivePage, LiveTransport } from "./transport";

/** The live view's rules, driven by a scripted transport and hand-made events. */

const S = "ses_fffffffffff0aaaaaaaaaaaaaa";
/** Two children; the list keeps them in the server's order (by id, descending). */
const CHILD_OLD = "ses_fffffffffff1aaaaaaaaaaaaaa";
const CHILD_NEW = "ses_fffffffffff00aaaaaaaaaaaaa";
const msgId = (n: number) => `msg_${n.toString(16).padStart(12, "0")}00000000000000`;

function info(id: string, updated: number, extra: Partial<Info> = {}): Info {
  return { id, title: id, time: { created: 1, updated }, ...extra } as unknown as Info;
}
function message(n: number): WithParts {
  return { info: { id: msgId(n), sessionId: S, role: "user", time: { created: n }, agent: "build", model: { providerId: "p", modelId: "m" } }, parts: [] };
}
function page(from: number, to: number, cursor?: string): PageInput {
  const messages: WithParts[] = [];
  for (let n = from; n <= to; n++) messages.push(message(n));
  return { messages, cursor };
}
let seq = 0;
function event(name: string, payload: unknown, sessionId = S): LiveEvent {
  return liveEvent({ id: `e${seq++}`, name, payload, scope: { teamId: "tem_1", sessionId } });
}
const busy: Status = { type: "busy" };
const idle: Status = { type: "idle" };

/** A transport whose reads wait until the test answers them, in any order. */
function scripted(extra: Partial<LiveTransport> = {}) {
  const reads: { before?: string; limit: number; resolve: (page: LivePage) => void; reject: (error: unknown) => void; signal: AbortSignal }[] = [];
  const opens: boolean[] = [];
  const transport: LiveTransport = {
    sessionId: S,
    eventsUrl: "/events",
    fetchPage: (request, signal) => new Promise<LivePage>((resolve, reject) => reads.push({ ...request, resolve, reject, signal })),
    onOpen: (reconnect) => opens.push(reconnect),
    ...extra,
  };
  return { transport, reads, opens };
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const ids = (live: LiveController) => live.store.getSnapshot().messages.map((m) => m.info.id);

describe("LiveController", () => {
  it("reads the newest page at mount and on every (re)open, applying overlapping reads in the order they started", async () => {
    const { transport, reads, opens } = scripted();
    const live = new LiveController(transport);
    const stop = live.start();
    live.handlers.onOpen?.(false);
    expect(reads.map((r) => [r.before, r.limit])).toEqual([
      [undefined, PAGE_SIZE],
      [undefined, PAGE_SIZE],
    ]);
    expect(opens).toEqual([false]);
    // The later read answers first; the earlier one, older, is then dropped.
    reads[1]!.resolve({ page: page(1, 3) });
    await settle();
    reads[0]!.resolve({ page: page(1, 2) });
    await settle();
    expect(ids(live)).toEqual([msgId(1), msgId(2), msgId(3)]);
    expect(live.getState().connected).toBe(true);
    live.handlers.onError?.();
    expect(live.getState().connected).toBe(false);
    expect(reads).toHaveLength(2);
    stop();
  });

  it("loads older pages on demand, keeping the place, and retries what failed", async () => {
    const { transport, reads } = scripted();
    const live = new LiveController(transport);
    live.start();
    reads[0]!.resolve({ page: page(5, 6, msgId(5)) });
    await settle();
    live.loadOlder();
    live.loadOlder();
    expect(reads.map((r) => r.before)).toEqual([undefined, msgId(5)]);
    reads[1]!.reject(new Error("offline"));
    await settle();
    expect(live.store.getSnapshot()).toMatchObject({ error: "offline", loadingOlder: false });
    live.retry();
    expect(reads[2]!.before).toBe(msgId(5));
    reads[2]!.resolve({ page: page(3, 4) });
    await settle();
    expect(ids(live)).toEqual([3, 4, 5, 6].map(msgId));
    expect(live.store.getSnapshot()).toMatchObject({ error: undefined, hasOlder: false });
  });

  it("takes the run status from stream.ready and session.status, and a page's status only when read after them", async () => {
    const { transport, reads } = scripted();
    let now = 100;
    const live = new LiveController(transport, () => now);
    live.handlers.onOpen?.(false);
    live.handlers.onEvent(event("session.updated", { info: info(S, 1, { status: idle }) }));
    expect(live.store.getSnapshot().statusKnown).toBe(false);
    now = 101;
    live.handlers.onEvent(event("stream.ready", { sessionId: S, status: busy }));
    expect(live.store.getSnapshot()).toMatchObject({ status: busy, statusKnown: true });
    // The read started at 100, before the stream said "busy": its status is older.
    reads[0]!.resolve({ page: page(1, 1), info: info(S, 2, { status: idle }) });
    await settle();
    expect(live.store.getSnapshot().status).toEqual(busy);
    expect(live.store.getSnapshot().info?.time.updated).toBe(2);
    now = 102;
    live.handlers.onOpen?.(true);
    reads[1]!.resolve({ page: page(1, 1), info: info(S, 3, { status: idle }) });
    await settle();
    expect(live.store.getSnapshot().status).toEqual(idle);
    // Another session's status is not the shown one's.
    live.handlers.onEvent(event("session.status", { sessionId: CHILD_OLD, status: busy }, CHILD_OLD));
    live.handlers.onEvent(event("stream.ready", { sessionId: CHILD_OLD, status: busy }, CHILD_OLD));
    expect(live.store.getSnapshot().status).toEqual(idle);
  });

  it("shows what the transport already has, keeps the children of the session shown, and tells about info changes", () => {
    const { transport, reads } = scripted();
    const infos: number[] = [];
    const live = new LiveController({
      ...transport,
      initial: { page: page(1, 2), info: info(S, 1, { status: busy }), children: [info(CHILD_OLD, 1, { parentId: S })] },
      onInfo: (held) => infos.push(held.time.updated),
    });
    live.start();
    expect(reads).toHaveLength(0);
    expect(live.store.getSnapshot()).toMatchObject({ loaded: true, status: busy, statusKnown: true });
    live.handlers.onEvent(event("session.created", { info: info(CHILD_NEW, 2, { parentId: S }) }, CHILD_NEW));
    live.handlers.onEvent(event("session.updated", { info: info(CHILD_OLD, 0, { parentId: S, title: "stale" }) }, CHILD_OLD));
    live.handlers.onEvent(event("session.created", { info: info("ses_0000000000000000000000000a", 2, { parentId: CHILD_NEW }) }, "ses_0000000000000000000000000a"));
    expect(live.getState().children.map((c) => [c.id, c.title])).toEqual([
      [CHILD_OLD, CHILD_OLD],
      [CHILD_NEW, CHILD_NEW],
    ]);
    live.handlers.onEvent(event("session.deleted", { info: info(CHILD_OLD, 3, { parentId: S }) }, CHILD_OLD));
    expect(live.getState().children.map((c) => c.id)).toEqual([CHILD_NEW]);
    live.handlers.onEvent(event("session.updated", { info: info(S, 4, { title: "Renamed" }) }));
    expect(live.store.getSnapshot().info?.title).toBe("Renamed");
    expect(infos).toEqual([4]);
    // Events of other sessions never reach the messages shown.
    live.handlers.onEvent(event("message.updated", { info: { ...message(9).info, sessionId: CHILD_NEW } }, CHILD_NEW));
    expect(ids(live)).toEqual([msgId(1), msgId(2)]);
    live.handlers.onEvent(event("session.deleted", { info: info(S, 5) }));
    expect(live.getState().gone).toBe("deleted");
  });

  it("is revoked by share.revoked or by a read the transport says means gone; a dropped stream is probed at most every probeMs", async () => {
    let now = 10_000;
    const gone = new Error("NOT_FOUND");
    const { transport, reads } = scripted({ probeMs: 2_000, goneOn: (error) => (error === gone ? "revoked" : undefined), describeError: (failed) => `failed: ${failed}` });
    const live = new LiveController({ ...transport, initial: { page: page(1, 1) } }, () => now);
    live.handlers.onError?.();
    now = 11_000;
    live.handlers.onError?.();
    now = 12_500;
    live.handlers.onError?.();
    expect(reads).toHaveLength(2);
    reads[0]!.reject(new Error("offline"));
    await settle();
    expect(live.store.getSnapshot().error).toBe("failed: newest");
    expect(live.getState().gone).toBeUndefined();
    reads[1]!.reject(gone);
    await settle();
    expect(live.getState().gone).toBe("revoked");

    const other = new LiveController(scripted().transport);
    other.handlers.onEvent(event("share.revoked", { shareId: "x", sessionId: S }));
    expect(other.getState().gone).toBe("revoked");
  });

  it("cancels its reads when unmounted: their answers are not applied", async () => {
    const { transport, reads } = scripted();
    const live = new LiveController(transport);
    const stop = live.start();
    stop();
    expect(reads[0]!.signal.aborted).toBe(true);
    reads[0]!.resolve({ page: page(1, 1) });
    await settle();
    expect(live.store.getSnapshot().loaded).toBe(false);
  });
});
