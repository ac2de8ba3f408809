import { describe, expect, it } from "vitest";
import { PatternTooLongError, glob } from "../../lib/match";
import { pathMatcher } from "./glob-match";

/** [pattern, path, matches?] */
type Case = [string, string, boolean];

const GLOB: Record<string, Case[]> = {
  "* and ? stay within one path segment": [
    ["*.ts", "a.ts", true],
    ["*.ts", "src/a.ts", false],
    ["a?c", "abc", true],
    ["a?c", "a/c", false],
  ],
  "** spans any number of directories, including none": [
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "x/y/z/a.ts", true],
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/deep/er/a.ts", true],
    ["src/**/*.ts", "lib/a.ts", false],
    ["src/**", "src/a/b/c", true],
    ["a**b", "axxb", true],
    ["a**b", "ax/xb", false],
  ],
  "supports braces (nested), classes and escapes; other characters are literal": [
    ["*.{ts,tsx}", "a.tsx", true],
    ["*.{ts,tsx}", "a.js", false],
    ["{src,lib/{a,b}}/x", "lib/b/x", true],
    ["file[0-9].txt", "file7.txt", true],
    ["file[!0-9].txt", "file7.txt", false],
    ["a+b(c).txt", "a+b(c).txt", true],
    ["a.txt", "abtxt", false],
    ["\\*.txt", "*.txt", true],
    ["\\*.txt", "a.txt", false],
    ["{unclosed", "{unclosed", true],
  ],
};

describe("glob", () => {
  for (const [name, cases] of Object.entries(GLOB)) {
    it(name, () => {
      for (const [pattern, path, want] of cases) expect(glob(pattern)(path), `${pattern} ~ ${path}`).toBe(want);
    });
  }
});

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
