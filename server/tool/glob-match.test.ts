import { describe, expect, it } from "vitest";
import { PatternTooLongError, glob } from "../../lib/match";
import { pathMatcher } from "./glob-match";

const matches = (pattern: string, p: string) => glob(pattern)(p);

describe("glob", () => {
  it("* and ? stay within one path segment", () => {
    expect(matches("*.ts", "a.ts")).toBe(true);
    expect(matches("*.ts", "src/a.ts")).toBe(false);
    expect(matches("a?c", "abc")).toBe(true);
    expect(matches("a?c", "a/c")).toBe(false);
  });

  it("** spans any number of directories, including none", () => {
    expect(matches("**/*.ts", "a.ts")).toBe(true);
    expect(matches("**/*.ts", "x/y/z/a.ts")).toBe(true);
    expect(matches("src/**/*.ts", "src/a.ts")).toBe(true);
    expect(matches("src/**/*.ts", "src/deep/er/a.ts")).toBe(true);
    expect(matches("src/**/*.ts", "lib/a.ts")).toBe(false);
    expect(matches("src/**", "src/a/b/c")).toBe(true);
    expect(matches("a**b", "axxb")).toBe(true);
    expect(matches("a**b", "ax/xb")).toBe(false);
  });

  it("supports braces (nested), classes and escapes; other characters are literal", () => {
    expect(matches("*.{ts,tsx}", "a.tsx")).toBe(true);
    expect(matches("*.{ts,tsx}", "a.js")).toBe(false);
    expect(matches("{src,lib/{a,b}}/x", "lib/b/x")).toBe(true);
    expect(matches("file[0-9].txt", "file7.txt")).toBe(true);
    expect(matches("file[!0-9].txt", "file7.txt")).toBe(false);
    expect(matches("a+b(c).txt", "a+b(c).txt")).toBe(true);
    expect(matches("a.txt", "abtxt")).toBe(false);
    expect(matches("\\*.txt", "*.txt")).toBe(true);
    expect(matches("\\*.txt", "a.txt")).toBe(false);
    expect(matches("{unclosed", "{unclosed")).toBe(true);
  });
});

describe("pathMatcher", () => {
  it("matches a slash-free pattern against the file name at any depth", () => {
    expect(pathMatcher("*.ts")("deep/in/tree/a.ts")).toBe(true);
    expect(pathMatcher("src/*.ts")("src/a.ts")).toBe(true);
    expect(pathMatcher("src/*.ts")("x/src/a.ts")).toBe(false);
    expect(pathMatcher("./src/*.ts")("src/a.ts")).toBe(true);
    expect(pathMatcher("{a,b}.md")("docs/b.md")).toBe(true);
    expect(pathMatcher("**/x.md")("deep/x.md")).toBe(true);
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
