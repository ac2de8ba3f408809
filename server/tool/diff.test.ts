import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { unifiedDiff } from "./diff";

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

  it("keeps far-apart changes in separate hunks", () => {
    const before = Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join("\n") + "\n";
    const after = before.replace("l2\n", "two\n").replace("l28\n", "twenty-eight\n");
    const d = unifiedDiff("f", before, after);
    expect(d.diff.match(/^@@ /gm)).toHaveLength(2);
    expect(d.diff).toContain("@@ -1,5 +1,5 @@");
    expect(d.diff).toContain("@@ -25,6 +25,6 @@");
  });

  it("is empty when nothing changed and starts at 0 for a new or emptied file", () => {
    expect(unifiedDiff("f", "same\n", "same\n")).toEqual({ diff: "", additions: 0, deletions: 0 });
    expect(unifiedDiff("f", "", "a\nb\n").diff).toBe("--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b");
    expect(unifiedDiff("f", "a\nb\n", "").diff).toBe("--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-a\n-b");
  });

  it("shows a removed trailing newline: not empty, marked \\ No newline at end of file", () => {
    const d = unifiedDiff("f.txt", "one\ntwo\n", "one\ntwo");
    expect(d.diff).not.toBe("");
    expect(d.diff).toBe(["--- a/f.txt", "+++ b/f.txt", "@@ -1,2 +1,2 @@", " one", "-two", "+two", "\\ No newline at end of file"].join("\n"));
    expect(d).toMatchObject({ additions: 1, deletions: 1 });
    // An added one too, on the old side.
    expect(unifiedDiff("f.txt", "one", "one\n").diff).toBe(["--- a/f.txt", "+++ b/f.txt", "@@ -1,1 +1,1 @@", "-one", "\\ No newline at end of file", "+one"].join("\n"));
  });

  it("shows a line-ending change (LF → CRLF) as changed lines whose new text keeps its \\r", () => {
    const d = unifiedDiff("win.txt", "a\nb\n", "a\r\nb\r\n");
    expect(d).toMatchObject({ additions: 2, deletions: 2 });
    expect(d.diff.split("\n").slice(2)).toEqual(["@@ -1,2 +1,2 @@", "-a", "-b", "+a\r", "+b\r"]);
    // And back.
    expect(unifiedDiff("win.txt", "a\r\n", "a\n").diff.split("\n").slice(3)).toEqual(["-a\r", "+a"]);
  });

  it("falls back to all removed, all added for very different large inputs, and the patch still applies", () => {
    const before = Array.from({ length: 3000 }, (_, i) => `old ${i}`).join("\n");
    const after = Array.from({ length: 2500 }, (_, i) => `new ${i}`).join("\n") + "\n";
    const d = unifiedDiff("big.txt", before, after);
    expect(d).toMatchObject({ additions: 2500, deletions: 3000 });
    expect(d.diff.split("\n")[2]).toBe("@@ -1,3000 +1,2500 @@");
    expect(applyPatch(before, d.diff)).toBe(after);
  });

  it("makes patches that turn the old text into the new one", () => {
    const cases: [string, string][] = [
      ["a\nb\nc\n", "a\nx\nc\nd\n"],
      ["", "fresh\n"],
      ["x\r\ny\r\n", "x\ny\n"],
      ["keep\nlast", "keep\nlast\n"],
    ];
    for (const [before, after] of cases) expect(applyPatch(before, unifiedDiff("f", before, after).diff)).toBe(after);
  });
});
