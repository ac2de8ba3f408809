import { describe, expect, it } from "vitest";
import type { Message, MessagePage, Part } from "./types";
import { type MessageEvent, type MessagesData, applyMessageEvent, replayOnPage } from "./message-cache";

const S = "ses_000000000000aaaaaaaaaaaaaa";
const msgId = (n: number) => `msg_${n.toString(16).padStart(12, "0")}aaaaaaaaaaaaaa`;
const prtId = (n: number) => `prt_${n.toString(16).padStart(12, "0")}aaaaaaaaaaaaaa`;

function user(n: number): Message {
  return { id: msgId(n), sessionId: S, role: "user", time: { created: n }, agent: "build", model: { providerId: "p", modelId: "m" } };
}
function text(message: number, n: number, value: string): Part {
  return { id: prtId(n), sessionId: S, messageId: msgId(message), type: "text", text: value };
}
function page(messages: number[], cursor?: string): MessagePage {
  return { messages: messages.map((n) => ({ info: user(n), parts: [] })), cursor, corrupt: [] };
}
function data(...pages: MessagePage[]): MessagesData {
  return { pages, pageParams: pages.map((_, i) => (i === 0 ? undefined : msgId(i))) };
}
const apply = (d: MessagesData, ...events: MessageEvent[]) => events.reduce((acc, e) => applyMessageEvent(acc, e).data, d);
const partUpdated = (part: Part, delta?: string, offset?: number): MessageEvent => ({
  name: "message.part.updated",
  payload: delta === undefined ? { part } : { part, delta, offset },
});
const textOf = (d: MessagesData, message: number) =>
  d.pages.flatMap((p) => p.messages).find((m) => m.info.id === msgId(message))?.parts.map((p) => (p.type === "text" ? p.text : p.type));

describe("message cache", () => {
  it("adds a new message to the newest page, in id order, and replaces a known one", () => {
    let d = data(page([5, 6]), page([1, 2], undefined));
    d = apply(d, { name: "message.updated", payload: { info: user(7) } });
    expect(d.pages[0]?.messages.map((m) => m.info.id)).toEqual([msgId(5), msgId(6), msgId(7)]);
    d = apply(d, { name: "message.updated", payload: { info: { ...user(6), agent: "plan" } } });
    expect(d.pages[0]?.messages).toHaveLength(3);
    expect(d.pages[0]?.messages[1]?.info.agent).toBe("plan");
  });

  it("ignores messages older than the loaded pages unless everything is loaded", () => {
    const partial = data(page([5, 6], msgId(5)));
    expect(apply(partial, { name: "message.updated", payload: { info: user(2) } }).pages[0]?.messages).toHaveLength(2);
    const full = data(page([5, 6]));
    expect(apply(full, { name: "message.updated", payload: { info: user(2) } }).pages[0]?.messages[0]?.info.id).toBe(msgId(2));
  });

  it("keeps parts in id order and replaces a part by id", () => {
    let d = data(page([5]));
    d = apply(d, partUpdated(text(5, 3, "c")), partUpdated(text(5, 1, "a")), partUpdated(text(5, 2, "b")), partUpdated(text(5, 1, "A")));
    expect(textOf(d, 5)).toEqual(["A", "b", "c"]);
  });

  it("appends compact deltas at their offset, skips repeats and drops gaps", () => {
    let d = data(page([5]));
    const blank = text(5, 1, "");
    d = apply(d, partUpdated(blank, "Hel", 0), partUpdated(blank, "lo", 3));
    expect(textOf(d, 5)).toEqual(["Hello"]);
    d = apply(d, partUpdated(blank, "lo", 3));
    expect(textOf(d, 5)).toEqual(["Hello"]);
    d = apply(d, partUpdated(blank, " world", 9));
    expect(textOf(d, 5)).toEqual(["Hello"]);
    d = apply(d, partUpdated(text(5, 1, "Hello there, world")), partUpdated(blank, "!", 18));
    expect(textOf(d, 5)).toEqual(["Hello there, world!"]);
  });

  it("a delta for an unknown part starts it only at offset 0", () => {
    const d = apply(data(page([5])), partUpdated(text(5, 1, ""), "late", 10));
    expect(textOf(d, 5)).toEqual([]);
  });

  it("removes messages and parts", () => {
    let d = data(page([5, 6]));
    d = apply(d, partUpdated(text(5, 1, "a")), partUpdated(text(5, 2, "b")));
    d = apply(d, { name: "message.part.removed", payload: { sessionId: S, messageId: msgId(5), partId: prtId(1) } });
    expect(textOf(d, 5)).toEqual(["b"]);
    d = apply(d, { name: "message.removed", payload: { sessionId: S, messageId: msgId(6) } });
    expect(d.pages[0]?.messages.map((m) => m.info.id)).toEqual([msgId(5)]);
  });

  it("asks for a refetch when a part belongs to a message newer than the cache", () => {
    const d = data(page([5]));
    expect(applyMessageEvent(d, partUpdated(text(9, 1, "x"))).stale).toBe(true);
    expect(applyMessageEvent(d, partUpdated(text(4, 1, "x"))).stale).toBe(false);
  });

  it("replaying events over a fetched page is idempotent and catches up a lagging read", () => {
    const blank = text(5, 1, "");
    const events: MessageEvent[] = [partUpdated(blank, "Hel", 0), partUpdated(blank, "lo", 3), { name: "message.updated", payload: { info: user(6) } }];
    // The database had flushed "Hel" only; the events bring the rest and the new message.
    const fetched: MessagePage = { messages: [{ info: user(5), parts: [text(5, 1, "Hel")] }], cursor: undefined, corrupt: [] };
    const once = replayOnPage(fetched, events, true);
    expect(once.messages.map((m) => m.parts.map((p) => (p.type === "text" ? p.text : "")))).toEqual([["Hello"], []]);
    expect(replayOnPage(once, events, true)).toEqual(once);
    // An older page never gains newer messages.
    expect(replayOnPage(fetched, events, false).messages).toHaveLength(1);
  });
});
