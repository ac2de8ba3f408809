import { describe, expect, it } from "vitest";
import type { Envelope } from "../bus/bus";
import * as Id from "../id";
import * as Event from "./events";
import { type AssistantMessage, type Part, emptyTokens } from "./message";
import { ReplyWatch } from "./subagent";

/** ReplyWatch: a child's last reply from its events, or undefined when they do not tell it whole. */

const sessionId = Id.ascending("session");
const scope = { teamId: "team", sessionId };
const envelope = (name: string, payload: unknown): Envelope => ({ id: Id.ascending("part"), name, payload, scope, time: 0 });

function assistant(completed: boolean): AssistantMessage {
  return {
    id: Id.ascending("message"),
    sessionId,
    role: "assistant",
    parentId: Id.ascending("message"),
    providerId: "p",
    modelId: "m",
    agent: "general",
    path: { cwd: "/", root: "/" },
    cost: 0,
    tokens: emptyTokens(),
    time: completed ? { created: 1, completed: 2 } : { created: 1 },
  };
}

const text = (message: AssistantMessage, id: string, value: string): Part => ({ id, sessionId, messageId: message.id, type: "text", text: value, time: { start: 1 } });
const message = (info: AssistantMessage) => envelope(Event.MessageUpdated.name, { info });
const part = (value: Part, delta?: string) => envelope(Event.PartUpdated.name, delta === undefined ? { part: value } : { part: value, delta });
const removed = (value: Part) => envelope(Event.PartRemoved.name, { sessionId, messageId: value.messageId, partId: value.id });

function watch(events: Envelope[]): ReplyWatch {
  const w = new ReplyWatch();
  for (const event of events) w.see(event);
  return w;
}

describe("ReplyWatch", () => {
  it("gives the newest assistant message with its text parts as last written, in order", () => {
    const earlier = assistant(true);
    const last = assistant(false);
    const a = Id.ascending("part");
    const b = Id.ascending("part");
    const w = watch([
      message(earlier),
      part(text(earlier, Id.ascending("part"), "an earlier step")),
      message(last),
      part(text(last, b, "")),
      part(text(last, b, "Sec"), "Sec"),
      part(text(last, b, "Second"), "ond"),
      part(text(last, b, "Second")),
      part(text(last, a, "First")),
      message({ ...last, finish: "stop", time: { created: 1, completed: 3 } }),
    ]);
    const reply = w.reply();
    expect(reply?.info).toMatchObject({ id: last.id, finish: "stop" });
    expect(reply?.parts.map((p) => (p.type === "text" ? p.text : p.type))).toEqual(["First", "Second"]);
  });

  it("tells nothing while the newest message is unfinished, or when a text part's last event was a delta", () => {
    const info = assistant(false);
    const id = Id.ascending("part");
    expect(watch([message(info), part(text(info, id, "done"))]).reply()).toBeUndefined();
    const finished = { ...info, time: { created: 1, completed: 2 } };
    // Streamed deltas cross instances without their text: the reply is read from the database instead.
    expect(watch([message(finished), part(text(info, id, "half")), part(text(info, id, "half more"), " more")]).reply()).toBeUndefined();
    expect(watch([part(text(info, id, "no message"))]).reply()).toBeUndefined();
    // A delta as it crosses instances: the part without its text. Not read, and never thrown on.
    const compact = envelope(Event.PartUpdated.name, { part: { id, sessionId, messageId: info.id, type: "text" }, delta: "x", offset: 4 });
    expect(watch([message(finished), compact]).reply()).toBeUndefined();
    expect(watch([message(finished), compact, part(text(info, id, "half x"))]).reply()?.parts).toHaveLength(1);
  });

  it("an event it cannot read sends the reply to the database instead", () => {
    const info = assistant(true);
    expect(watch([message(info), envelope(Event.PartUpdated.name, { part: { id: 1, type: "text" } })]).reply()).toBeUndefined();
    expect(watch([envelope(Event.MessageUpdated.name, { info: { role: "assistant" } }), message(info)]).reply()).toBeUndefined();
    expect(watch([message(info)]).reply()).toMatchObject({ info: { id: info.id }, parts: [] });
  });

  it("leaves out a removed part (a retried attempt's) and keeps a failed reply's error", () => {
    const info: AssistantMessage = { ...assistant(false), error: { name: "UnknownError", message: "boom" } };
    const gone = text(info, Id.ascending("part"), "discarded");
    const reply = watch([message(info), part(gone), part(gone, "!"), removed(gone)]).reply();
    expect(reply?.parts).toEqual([]);
    expect(reply?.info).toMatchObject({ error: { message: "boom" } });
  });

  it("keeps a closed text part over a copy or a delta that comes after it (isNewer: a final part is final)", () => {
    const info = assistant(true);
    const id = Id.ascending("part");
    const closed: Part = { id, sessionId, messageId: info.id, type: "text", text: "Done.", time: { start: 1, end: 2 } };
    // Across instances an event may arrive late: a stale delta or open copy does not undo the part's end.
    const reply = watch([message(info), part(closed), part(text(info, id, "Done. and more"), " and more"), part(text(info, id, "Done. and more"))]).reply();
    expect(reply?.parts).toEqual([closed]);
    // Nor does an unfinished copy of the finished message.
    expect(watch([message(info), message({ ...info, time: { created: 1 } }), part(closed)]).reply()?.info).toEqual(info);
    // An open part's copy further along replaces it; a shorter one does not.
    const open = Id.ascending("part");
    expect(watch([message(info), part(text(info, open, "long text")), part(text(info, open, "long"))]).reply()?.parts.map((p) => (p.type === "text" ? p.text : ""))).toEqual(["long text"]);
  });
});
