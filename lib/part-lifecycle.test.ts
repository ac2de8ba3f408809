import { describe, expect, it } from "vitest";
import type { Part, ToolPart } from "../server/session/message";
import { ABORTED_TOOL, abortTool, canMove, closePart, complete, fail, isNewer, isOpen } from "./part-lifecycle";

const base = { id: "prt_1", sessionId: "ses_1", messageId: "msg_1" };
const text = (value: string, end?: number): Part => ({ ...base, type: "text", text: value, time: end === undefined ? { start: 1 } : { start: 1, end } });
const tool = (state: ToolPart["state"]): ToolPart => ({ ...base, type: "tool", callId: "c1", tool: "bash", state });
const pending = tool({ status: "pending", input: {}, raw: "" });
const running = tool({ status: "running", input: { command: "ls" }, metadata: { output: "a\n" }, time: { start: 5 } });
const completed = tool({ status: "completed", input: {}, output: "ok", title: "t", metadata: {}, time: { start: 5, end: 6 } });

describe("part lifecycle", () => {
  it("allows only pending → running → completed, and error from pending or running", () => {
    expect(canMove("pending", "running")).toBe(true);
    expect(canMove("pending", "error")).toBe(true);
    expect(canMove("running", "completed")).toBe(true);
    expect(canMove("running", "error")).toBe(true);
    expect(canMove("pending", "completed")).toBe(false);
    expect(canMove("completed", "error")).toBe(false);
    expect(canMove("error", "running")).toBe(false);
    expect(canMove("running", "pending")).toBe(false);
  });

  it("completes only a running tool, its result's metadata joining what it reported; anything else is an illegal move", () => {
    expect(complete(running, { output: "done", title: "ls", metadata: { exit: 0 } }, 9)?.state).toEqual({
      status: "completed",
      input: { command: "ls" },
      output: "done",
      title: "ls",
      metadata: { output: "a\n", exit: 0 },
      time: { start: 5, end: 9 },
    });
    expect(complete(pending, { output: "x", title: "x" }, 9)).toBeUndefined();
    expect(complete(completed, { output: "x", title: "x" }, 9)).toBeUndefined();
  });

  it("fails a pending or running tool (keeping a running one's metadata and start), never one that ended", () => {
    expect(fail(running, "boom", 9)?.state).toEqual({ status: "error", input: { command: "ls" }, error: "boom", metadata: { output: "a\n" }, time: { start: 5, end: 9 } });
    expect(fail(pending, "boom", 9)?.state).toEqual({ status: "error", input: {}, error: "boom", time: { start: 9, end: 9 } });
    expect(fail(completed, "boom", 9)).toBeUndefined();
    expect(abortTool(completed, 9)).toBe(completed);
  });

  it("closes open parts: text gets its end, a tool becomes aborted keeping what it reported", () => {
    expect(closePart(text("hi"), 9)).toEqual({ ...text("hi"), time: { start: 1, end: 9 } });
    expect(closePart(text("hi", 3), 9)).toBeUndefined();
    expect(closePart(running, 9)).toEqual(tool({ status: "error", input: { command: "ls" }, error: ABORTED_TOOL, metadata: { output: "a\n" }, time: { start: 5, end: 9 } }));
    expect(abortTool(pending, 9).state).toEqual({ status: "error", input: {}, error: ABORTED_TOOL, time: { start: 9, end: 9 } });
    expect(closePart(completed, 9)).toBeUndefined();
    expect([text("x"), running, pending, completed].map(isOpen)).toEqual([true, true, true, false]);
  });

  it("keeps the copy that is further along", () => {
    expect(isNewer(text("ab"), text("abc"))).toBe(true);
    expect(isNewer(text("abc"), text("ab"))).toBe(false);
    expect(isNewer(text("abc", 4), text("abcdef"))).toBe(false);
    expect(isNewer(text("abc"), text("a", 4))).toBe(true);
    expect(isNewer(running, pending)).toBe(false);
    expect(isNewer(pending, running)).toBe(true);
    expect(isNewer(completed, running)).toBe(false);
  });
});
