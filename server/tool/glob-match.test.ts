import { describe, expect, it } from "vitest";
import { PatternTooLongError, glob } from "../../lib/match";
import { pathMatcher } from "./glob-match";

/**
 * The tools' matcher of relative paths. The glob language itself (`*`, `?`, `**`, braces,
 * classes, escapes) is tested in lib/match.test.ts.
 */

/** [pattern, path, matches?] */
type Case = [string, string, boolean];

describe("pathMatcher", () => {
  it("matches a slash-free pattern against the file name at any depth", () => {
    const cases: Case[] = [
      ["*.ts", "deep/in/tree/a.ts", true],
      ["src/*.ts", "src/a.ts", true],
      ["src/*.ts", "x/src/a.ts", false],
      ["./src/*.ts", "src/a.ts", true],
      ["{a,b}.md", "docs/b.md", true],
      ["**/x.md", "deep/x.md", true],
    ];
    for (const [pattern, path, want] of cases) expect(pathMatcher(pattern)(path), `${pattern} ~ ${path}`).toBe(want);
  });

  it("does not backtrack on pathological patterns", () => {
    const start = performance.now();
    expect(pathMatcher("*a*a*a*a*a*a*a*a*a*c")(`dir/${"a".repeat(10_000)}`)).toBe(false);
    expect(pathMatcher("**/**/**/**/**/x")("a/".repeat(2_000) + "y")).toBe(false);
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it("rejects patterns over the length limit", () => {
    expect(() => pathMatcher("a".repeat(4097))).toThrow(/is too long: Pattern is too long: 4097 characters/);
    expect(() => glob("a".repeat(4097))).toThrow(PatternTooLongError);
  });
});
