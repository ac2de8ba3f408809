import { describe, expect, it } from "vitest";
import { assistantMessage, textPart, userMessage } from "../../test/fixtures";
import type { Part, WithParts } from "./message";
import { revertPoint } from "./revert";

/** Where a revert starts, and which patches it undoes (server/session/revert.ts). */

const S = "ses_1";

function patch(messageId: string, id: string, hash: string, files: string[]): Part {
  return { id, sessionId: S, messageId, type: "patch", hash, files };
}

function tool(messageId: string, id: string): Part {
  return { id, sessionId: S, messageId, type: "tool", callId: `call_${id}`, tool: "write", state: { status: "completed", input: {}, output: "", title: "", metadata: {}, time: { start: 1, end: 2 } } };
}

const u1 = userMessage(S, { id: "msg_01" });
const a1 = assistantMessage(S, u1.id, { id: "msg_02" });
const u2 = userMessage(S, { id: "msg_03" });
const a2 = assistantMessage(S, u2.id, { id: "msg_04" });
const history: WithParts[] = [
  { info: u1, parts: [{ ...textPart(S, u1.id, "one"), id: "prt_01" }] },
  { info: a1, parts: [{ ...textPart(S, a1.id, "doing"), id: "prt_02" }, tool(a1.id, "prt_03"), patch(a1.id, "prt_04", "h1", ["a.txt"]), { ...textPart(S, a1.id, "done"), id: "prt_05" }] },
  { info: u2, parts: [{ ...textPart(S, u2.id, "two"), id: "prt_06" }] },
  { info: a2, parts: [tool(a2.id, "prt_07"), patch(a2.id, "prt_08", "h2", ["a.txt", "b.txt"])] },
];

describe("revertPoint", () => {
  it("a user message is its own point; every later patch is undone, oldest first", () => {
    const point = revertPoint(history, u1.id);
    expect(point).toMatchObject({ messageId: u1.id });
    expect(point?.partId).toBeUndefined();
    expect(point?.patches.map((p) => p.id)).toEqual(["prt_04", "prt_08"]);
  });

  it("a reply goes back to the user message it answers", () => {
    expect(revertPoint(history, a2.id)).toMatchObject({ messageId: u2.id, patches: [{ id: "prt_08" }] });
  });

  it("a part with text or a tool before it in its message is its own point", () => {
    const point = revertPoint(history, a1.id, "prt_04");
    expect(point).toMatchObject({ messageId: a1.id, partId: "prt_04" });
    expect(point?.patches.map((p) => p.id)).toEqual(["prt_04", "prt_08"]);
  });

  it("a part with nothing shown before it reverts its whole turn", () => {
    const point = revertPoint(history, a2.id, "prt_07");
    expect(point).toMatchObject({ messageId: u2.id });
    expect(point?.partId).toBeUndefined();
  });

  it("an unknown target has no point", () => {
    expect(revertPoint(history, "msg_99")).toBeUndefined();
    expect(revertPoint(history, a1.id, "prt_99")).toBeUndefined();
  });
});
