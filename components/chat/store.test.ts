import { describe, expect, it } from "vitest";
import type { LiveEvent } from "@/components/events/use-event-source";
import { liveEvent } from "@/test/live-event";
import type { Message, Part } from "@/server/session/message";
import { SessionStore } from "./store";

const S = "ses_fffffffffff0aaaaaaaaaaaaaa";
const M = "msg_00000000000100000000000000";
const P = "prt_00000000000100000000000000";

function text(body: string, end?: number): Part {
  return { id: P, sessionId: S, messageId: M, type: "text", text: body, time: { start: 1, ...(end ? { end } : {}) } };
}
let n = 0;
function ev(name: string, payload: unknown): LiveEvent {
  return liveEvent({ id: String(n++), name, payload, scope: { teamId: "t", sessionId: S } });
}
const delta = (full: string, d: string) => ev("message.part.updated", { part: { ...text(""), text: "" }, delta: d, offset: full.length - d.length });
const textOf = (store: SessionStore) => {
  const part = store.getSnapshot().messages[0]?.parts[0];
  return part?.type === "text" ? part.text : undefined;
};
const info: Message = { id: M, sessionId: S, role: "user", time: { created: 1 }, agent: "build", model: { providerId: "p", modelId: "m" } };
const message = ev("message.updated", { info });

describe("SessionStore", () => {
  it("appends deltas in order", () => {
    const s = new SessionStore(S);
    s.apply(message);
    s.apply(delta("Hel", "Hel"));
    s.apply(delta("Hello", "lo"));
    expect(textOf(s)).toBe("Hello");
  });

  it("does not duplicate text a stored page already has (reload mid-stream)", () => {
    const s = new SessionStore(S);
    s.apply(message);
    s.apply(delta("Hello wor", "wor")); // live events started before the page arrived: gap, buffered
    expect(textOf(s)).toBeUndefined();
    s.applyPage({ messages: [{ info: info, parts: [text("Hello world")] }], cursor: undefined }, false);
    expect(textOf(s)).toBe("Hello world");
    s.apply(delta("Hello world!", "!"));
    expect(textOf(s)).toBe("Hello world!");
    s.apply(delta("Hello world", "ld")); // a late duplicate is skipped
    expect(textOf(s)).toBe("Hello world!");
  });

  it("fills a gap when a full part arrives (runner resync) and replays buffered deltas", () => {
    const s = new SessionStore(S);
    s.apply(message);
    s.applyPage({ messages: [{ info: info, parts: [text("Hel")] }], cursor: undefined }, false); // page behind
    s.apply(delta("Hello wo", "wo")); // beyond what we have: waits
    expect(textOf(s)).toBe("Hel");
    expect(s.waiting).toBe(1);
    s.apply(ev("message.part.updated", { part: text("Hello w") }));
    expect(textOf(s)).toBe("Hello wo");
    expect(s.waiting).toBe(0);
  });

  it("never lets an older full part overwrite newer text, and the final part wins", () => {
    const s = new SessionStore(S);
    s.apply(message);
    s.apply(ev("message.part.updated", { part: text("Hello world  ") }));
    s.apply(ev("message.part.updated", { part: text("Hello") }));
    expect(textOf(s)).toBe("Hello world  ");
    s.apply(ev("message.part.updated", { part: text("Hello world", 5) })); // trimmed final
    expect(textOf(s)).toBe("Hello world");
    s.apply(ev("message.part.updated", { part: text("Hello world  ") })); // stale streaming copy
    expect(textOf(s)).toBe("Hello world");
  });

  it("keeps tool states moving forward only", () => {
    const s = new SessionStore(S);
    s.apply(message);
    const tool = (status: "pending" | "running" | "completed"): Part => ({
      id: P,
      sessionId: S,
      messageId: M,
      type: "tool",
      callId: "c",
      tool: "read",
      state:
        status === "pending"
          ? { status, input: {}, raw: "" }
          : status === "running"
            ? { status, input: {}, time: { start: 1 } }
            : { status, input: {}, output: "x", title: "t", metadata: {}, time: { start: 1, end: 2 } },
    });
    s.apply(ev("message.part.updated", { part: tool("completed") }));
    s.apply(ev("message.part.updated", { part: tool("running") }));
    const part = s.getSnapshot().messages[0]?.parts[0];
    expect(part?.type === "tool" && part.state.status).toBe("completed");
  });
});

const mid = (n: number) => `msg_${n.toString(16).padStart(12, "0")}aaaaaaaaaaaaaa`;
const pid = (n: number) => `prt_${n.toString(16).padStart(12, "0")}aaaaaaaaaaaaaa`;
function user(n: number) {
  return { id: mid(n), sessionId: S, role: "user" as const, time: { created: n }, agent: "build", model: { providerId: "p", modelId: "m" } };
}
function textPart(message: number, n: number, body: string, end?: number): Part {
  return { id: pid(n), sessionId: S, messageId: mid(message), type: "text", text: body, time: { start: 1, ...(end ? { end } : {}) } };
}
/** A page of user messages `from`..`to` (one text part each, part id = message number), cursor = its oldest when older ones exist. */
function page(from: number, to: number, hasOlder: boolean) {
  const messages = [];
  for (let n = from; n <= to; n++) messages.push({ info: user(n), parts: [textPart(n, n, `message ${n}`, 2)] });
  return { messages, cursor: hasOlder ? mid(from) : undefined };
}
const ids = (s: SessionStore) => s.getSnapshot().messages.map((m) => Number.parseInt(m.info.id.slice(4, 16), 16));
const textsOf = (s: SessionStore, n: number) =>
  s
    .getSnapshot()
    .messages.find((m) => m.info.id === mid(n))
    ?.parts.map((p) => (p.type === "text" ? p.text : p.type));

describe("SessionStore paging", () => {
  it("shows the newest page, then merges older pages below it until the oldest", () => {
    const s = new SessionStore(S);
    s.applyPage(page(21, 30, true), false);
    expect(ids(s)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    expect(s.getSnapshot()).toMatchObject({ loaded: true, hasOlder: true, olderCursor: mid(21) });
    s.applyPage(page(11, 20, true), true);
    expect(ids(s)).toHaveLength(20);
    expect(s.getSnapshot().olderCursor).toBe(mid(11));
    s.applyPage(page(1, 10, false), true);
    expect(ids(s)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(s.getSnapshot()).toMatchObject({ hasOlder: false, olderCursor: undefined });
  });

  it("live messages and deltas that arrive while pages load are neither lost nor duplicated", () => {
    const s = new SessionStore(S);
    // Events before the first page: a new message streaming.
    s.apply(ev("message.updated", { info: user(31) }));
    s.apply(ev("message.part.updated", { part: textPart(31, 100, ""), delta: "Hel", offset: 0 }));
    s.applyPage(page(21, 30, true), false);
    // The page was read while message 31 streamed: it has it, with less text than the events gave.
    s.applyPage({ messages: [{ info: user(31), parts: [textPart(31, 100, "He")] }], cursor: mid(31) }, false);
    s.apply(ev("message.part.updated", { part: textPart(31, 100, ""), delta: "lo", offset: 3 }));
    s.applyPage(page(11, 20, true), true);
    s.apply(ev("message.part.updated", { part: textPart(31, 100, ""), delta: "lo", offset: 3 })); // replayed
    expect(ids(s)).toEqual([...Array.from({ length: 21 }, (_, i) => i + 11)]);
    expect(textsOf(s, 31)).toEqual(["Hello"]);
    expect(new Set(ids(s)).size).toBe(ids(s).length);
  });

  it("an event about a message older than the loaded pages waits for its page, and the newer copy wins", () => {
    const s = new SessionStore(S);
    s.applyPage(page(21, 30, true), false);
    // Prune marks an old tool output while only the newest page is loaded.
    const tool = (compacted: number | undefined): Part => ({
      id: pid(500),
      sessionId: S,
      messageId: mid(15),
      type: "tool",
      callId: "c",
      tool: "read",
      state: { status: "completed", input: {}, output: "big", title: "t", metadata: {}, time: { start: 1, end: 2, ...(compacted ? { compacted } : {}) } },
    });
    s.apply(ev("message.part.updated", { part: tool(9) }));
    s.apply(ev("message.updated", { info: user(15) }));
    expect(ids(s)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    const older = page(11, 20, true);
    const fifteen = older.messages.find((m) => m.info.id === mid(15));
    fifteen?.parts.push(tool(9));
    s.applyPage(older, true);
    const parts = s.getSnapshot().messages.find((m) => m.info.id === mid(15))?.parts ?? [];
    expect(parts.map((p) => p.type)).toEqual(["text", "tool"]);
    const shown = parts[1];
    expect(shown?.type === "tool" && shown.state.status === "completed" && shown.state.time.compacted).toBe(9);
  });

  it("a message or part removed while a page was in flight stays removed", () => {
    const s = new SessionStore(S);
    s.applyPage(page(21, 30, true), false);
    s.apply(ev("message.removed", { sessionId: S, messageId: mid(30) }));
    s.apply(ev("message.part.removed", { sessionId: S, messageId: mid(29), partId: pid(29) }));
    s.applyPage(page(21, 30, true), false); // read before the removals
    expect(ids(s)).not.toContain(30);
    expect(textsOf(s, 29)).toEqual([]);
  });

  it("a message removed and then told again (a version switched back to) shows again with its parts", () => {
    const s = new SessionStore(S);
    s.applyPage(page(1, 3, false), false);
    s.apply(ev("message.removed", { sessionId: S, messageId: mid(3) }));
    expect(ids(s)).not.toContain(3);
    s.apply(ev("message.updated", { info: user(3) }));
    s.apply(ev("message.part.updated", { part: textPart(3, 30, "back") }));
    expect(ids(s)).toContain(3);
    expect(textsOf(s, 3)).toEqual(["back"]);
  });

  it("a newest page that no longer reaches what is held (many messages while disconnected) restarts paging from it", () => {
    const s = new SessionStore(S);
    s.applyPage(page(21, 30, true), false);
    s.applyPage(page(25, 34, true), false); // overlaps: contiguous
    expect(ids(s)).toEqual(Array.from({ length: 14 }, (_, i) => i + 21));
    s.applyPage(page(51, 60, true), false); // 35..50 were never seen
    expect(ids(s)).toEqual(Array.from({ length: 10 }, (_, i) => i + 51));
    expect(s.getSnapshot().olderCursor).toBe(mid(51));
    s.applyPage(page(41, 50, true), true);
    expect(ids(s)[0]).toBe(41);
  });

  it("keeps the same objects for unchanged messages and parts while another message streams", () => {
    const s = new SessionStore(S);
    s.applyPage(page(1, 3, false), false);
    s.apply(ev("message.updated", { info: user(4) }));
    s.apply(ev("message.part.updated", { part: textPart(4, 40, "Hi") }));
    s.apply(ev("message.part.updated", { part: textPart(4, 41, "Other") }));
    const before = s.getSnapshot().messages;
    s.apply(ev("message.part.updated", { part: textPart(4, 40, ""), delta: " there", offset: 2 }));
    const after = s.getSnapshot().messages;
    expect(after).not.toBe(before);
    for (let i = 0; i < 3; i++) expect(after[i]).toBe(before[i]);
    expect(after[3]).not.toBe(before[3]);
    expect(after[3]?.parts[1]).toBe(before[3]?.parts[1]);
    expect(after[3]?.parts[0]).not.toBe(before[3]?.parts[0]);
    expect(s.getSnapshot()).toBe(s.getSnapshot());
  });

  it("collects the corrupt rows of every page once", () => {
    const s = new SessionStore(S);
    const row = { table: "Part" as const, id: pid(9), error: "bad" };
    s.applyPage({ ...page(5, 6, true), corrupt: [row] }, false);
    s.applyPage({ ...page(5, 6, true), corrupt: [row] }, false);
    expect(s.getSnapshot().corrupt).toEqual([row]);
  });
});

describe("SessionStore session info", () => {
  const info = (title: string, updated: number) =>
    ({ id: S, title, time: { created: 1, updated } }) as unknown as import("@/server/session/info").Info;

  it("ignores a session.updated older than the info it has", () => {
    const s = new SessionStore(S);
    s.apply(ev("session.updated", { info: info("Generated title", 20) }));
    s.apply(ev("session.updated", { info: info("New session - 2026", 10) }));
    expect(s.getSnapshot().info?.title).toBe("Generated title");
    s.apply(ev("session.updated", { info: info("Renamed", 20) }));
    expect(s.getSnapshot().info?.title).toBe("Renamed");
    expect(s.setInfo(info("Fetched earlier", 15))).toBe(false);
    expect(s.getSnapshot().info?.title).toBe("Renamed");
    expect(s.setInfo(info("Fetched later", 30))).toBe(true);
    expect(s.getSnapshot().info?.title).toBe("Fetched later");
  });
});
