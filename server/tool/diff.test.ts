import { describe, expect, it } from "vitest";
import { diffLines, unifiedDiff } from "./diff";

describe("diffLines", () => {
  it("finds a minimal edit script", () => {
    const ops = diffLines(["a", "b", "c", "d"], ["a", "x", "c", "d", "e"]);
    expect(ops.map((o) => `${o.type[0]}${o.line}`)).toEqual(["ea", "db", "ix", "ec", "ed", "ie"]);
  });

  it("handles empty sides", () => {
    expect(diffLines([], ["a"]).map((o) => o.type)).toEqual(["insert"]);
    expect(diffLines(["a"], []).map((o) => o.type)).toEqual(["delete"]);
    expect(diffLines([], [])).toEqual([]);
  });

  it("reproduces both texts from the script on a random case", () => {
    const a = Array.from({ length: 200 }, (_, i) => `l${(i * 7) % 13}`);
    const b = Array.from({ length: 180 }, (_, i) => `l${(i * 5) % 11}`);
    const ops = diffLines(a, b);
    expect(ops.filter((o) => o.type !== "insert").map((o) => o.line)).toEqual(a);
    expect(ops.filter((o) => o.type !== "delete").map((o) => o.line)).toEqual(b);
  });
});

describe("unifiedDiff", () => {
  it("writes hunks with 3 lines of context and counts additions and deletions", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const after = before.replace("line 10\n", "line ten\nline 10.5\n");
    const d = unifiedDiff("src/f.txt", before, after);
    expect(d.additions).toBe(2);
    expect(d.deletions).toBe(1);
    expect(d.diff).toBe(
      ["--- a/src/f.txt", "+++ b/src/f.txt", "@@ -7,7 +7,8 @@", " line 7", " line 8", " line 9", "-line 10", "+line ten", "+line 10.5", " line 11", " line 12", " line 13"].join("\n"),
    );
  });

  it("is empty when nothing changed and starts at 0 for a new file", () => {
    expect(unifiedDiff("f", "same\n", "same\n")).toEqual({ diff: "", additions: 0, deletions: 0 });
    expect(unifiedDiff("f", "", "a\nb\n").diff).toBe("--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b");
  });
});
