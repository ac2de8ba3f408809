import { describe, expect, it } from "vitest";
import { childCalls, progressLine } from "./task-progress";

describe("a task card's progress line", () => {
  const metadata = {
    summary: [
      { id: "p1", tool: "list", state: { status: "completed", title: "." } },
      { id: "p2", tool: "read", state: { status: "running", title: "src/a.ts" } },
      { id: "p3", state: { status: "running" } },
      "junk",
    ],
  };

  it("names the current tool and the count while the child works", () => {
    const calls = childCalls(metadata);
    expect(calls.map((c) => c.tool)).toEqual(["list", "read"]);
    expect(progressLine(calls, true)).toBe("2 tool calls · now read src/a.ts");
  });

  it("gives the count alone when the task ended or nothing runs, and nothing before the first call", () => {
    expect(progressLine(childCalls(metadata), false)).toBe("2 tool calls");
    expect(progressLine([{ tool: "list", status: "completed", title: undefined }], true)).toBe("1 tool call");
    expect(progressLine(childCalls({}), true)).toBeUndefined();
  });
});
