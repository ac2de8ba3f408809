import { describe, expect, it } from "vitest";
import type { Envelope } from "@/server/bus/bus";
import type { Part } from "@/server/session/message";
import { SessionStore } from "./store";

const S = "ses_fffffffffff0aaaaaaaaaaaaaa";
const M = "msg_00000000000100000000000000";
const P = "prt_00000000000100000000000000";

function text(body: string, end?: number): Part {
  return { id: P, sessionId: S, messageId: M, type: "text", text: body, time: { start: 1, ...(end ? { end } : {}) } };
}
let n = 0;
function ev(name: string, payload: unknown): Envelope {
  return { id: String(n++), name, payload, scope: { teamId: "t", sessionId: S }, time: 0 };
}
const delta = (full: string, d: string) => ev("message.part.updated", { part: { ...text(""), text: "" }, delta: d, offset: full.length - d.length });
const textOf = (store: SessionStore) => {
  const part = store.getSnapshot().messages[0]?.parts[0];
  return part?.type === "text" ? part.text : undefined;
};
const message = ev("message.updated", {
  info: { id: M, sessionId: S, role: "user", time: { created: 1 }, agent: "build", model: { providerId: "p", modelId: "m" } },
});

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
    s.applyPage({ messages: [{ info: (message.payload as { info: never }).info, parts: [text("Hello world")] }], cursor: undefined }, false);
    expect(textOf(s)).toBe("Hello world");
    s.apply(delta("Hello world!", "!"));
    expect(textOf(s)).toBe("Hello world!");
    s.apply(delta("Hello world", "ld")); // a late duplicate is skipped
    expect(textOf(s)).toBe("Hello world!");
  });

  it("fills a gap when a full part arrives (runner resync) and replays buffered deltas", () => {
    const s = new SessionStore(S);
    s.apply(message);
    s.applyPage({ messages: [{ info: (message.payload as { info: never }).info, parts: [text("Hel")] }], cursor: undefined }, false); // page behind
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
