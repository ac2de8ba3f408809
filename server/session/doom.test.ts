import { describe, expect, it } from "vitest";
import { isDoomLoop } from "./doom";

const read = (filePath: string) => ({ tool: "read", input: { filePath } });
const grep = (pattern: string) => ({ tool: "grep", input: { pattern } });

describe("doom loop", () => {
  it("triggers on a 4th identical call after 3 identical ones", () => {
    expect(isDoomLoop([read("a"), read("a"), read("a")], read("a"))).toBe("repeat");
  });
  it("compares inputs by value, not key order", () => {
    const call = (input: Record<string, unknown>) => ({ tool: "edit", input });
    const prev = [call({ a: 1, b: 2 }), call({ b: 2, a: 1 }), call({ a: 1, b: 2 })];
    expect(isDoomLoop(prev, call({ b: 2, a: 1 }))).toBe("repeat");
  });
  it("does not trigger on 2 identical calls, different inputs or a different tool", () => {
    expect(isDoomLoop([read("a"), read("a")], read("a"))).toBeUndefined();
    expect(isDoomLoop([read("a"), read("a"), read("b")], read("a"))).toBeUndefined();
    expect(isDoomLoop([read("a"), read("a"), read("a")], grep("a"))).toBeUndefined();
  });
  it("catches an A,B,A,B,A,B cycle continuing with A", () => {
    const prev = [read("a"), grep("x"), read("a"), grep("x"), read("a"), grep("x")];
    expect(isDoomLoop(prev, read("a"))).toBe("cycle");
    expect(isDoomLoop(prev, read("b"))).toBeUndefined();
    expect(isDoomLoop(prev.slice(1), grep("x"))).toBeUndefined();
  });
  it("catches an A,B,C cycle three times over", () => {
    const block = [read("a"), grep("x"), read("c")];
    expect(isDoomLoop([...block, ...block, ...block], read("a"))).toBe("cycle");
    expect(isDoomLoop([...block, ...block], read("a"))).toBeUndefined();
  });
});
