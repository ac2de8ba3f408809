import { describe, expect, it } from "vitest";
import { MAX_PATTERN_LENGTH, PatternTooLongError, glob, wildcard } from "./match";
import { seededRandom } from "./random";

type Case = [pattern: string, value: string, expected: boolean];

function table(run: (pattern: string) => (value: string) => boolean, cases: Case[]): void {
  for (const [pattern, value, expected] of cases) {
    expect({ pattern, value, result: run(pattern)(value) }).toEqual({ pattern, value, result: expected });
  }
}

describe("wildcard", () => {
  it("* matches any run, including none, / and newlines", () => {
    table(wildcard, [
      ["*", "", true],
      ["*", "anything at all", true],
      ["*.env", "config/prod.env", true],
      ["*.env", "prod.env.bak", false],
      ["a*b", "ab", true],
      ["a*b", "a/x\ny/b", true],
      ["a**b", "axxb", true],
      ["*a*", "bab", true],
      ["*a*", "bbb", false],
    ]);
  });

  it("? matches exactly one code unit, newline included", () => {
    table(wildcard, [
      ["?.ts", "a.ts", true],
      ["?.ts", "ab.ts", false],
      ["?.ts", ".ts", false],
      ["a?b", "a\nb", true],
      ["a?b", "a/b", true],
      ["??", "ab", true],
      ["??", "a", false],
    ]);
  });

  it("every other character is literal; whole-string, case-sensitive match", () => {
    table(wildcard, [
      ["", "", true],
      ["", "a", false],
      ["a", "", false],
      ["a.b", "a.b", true],
      ["a.b", "axb", false],
      ["[ab]", "[ab]", true],
      ["[ab]", "a", false],
      ["{a,b}", "{a,b}", true],
      ["{a,b}", "a", false],
      ["a\\*", "a\\xyz", true],
      ["(a|b)+$^", "(a|b)+$^", true],
      ["Git", "git", false],
      ["git", "git status", false],
      ["status", "git status", false],
    ]);
  });

  it('a trailing " *" also matches the value without it', () => {
    table(wildcard, [
      ["git status *", "git status", true],
      ["git status *", "git status ", true],
      ["git status *", "git status -s", true],
      ["git status *", "git statusx", false],
      ["git status *", "git statu", false],
      ["git *", "git", true],
      ["git *", "gitx status", false],
      [" *", "", true],
      [" *", " x", true],
      [" *", "x", false],
      ["a  *", "a ", true],
      ["a  *", "a", false],
      ["git*", "git", true],
      ["git*", "gitx", true],
      ["git status ?", "git status", false],
    ]);
  });

  it("returns the same compiled matcher for the same pattern", () => {
    expect(wildcard("cache *")).toBe(wildcard("cache *"));
  });
});

describe("glob", () => {
  it("* and ? stay within one path segment", () => {
    table(glob, [
      ["*.ts", "a.ts", true],
      ["*.ts", ".ts", true],
      ["*.ts", "src/a.ts", false],
      ["*", "", true],
      ["*", "a/b", false],
      ["a?c", "abc", true],
      ["a?c", "a/c", false],
      ["a?c", "ac", false],
      ["src/*", "src/a", true],
      ["src/*", "src/a/b", false],
    ]);
  });

  it("** as a whole segment spans directories; elsewhere it is *", () => {
    table(glob, [
      ["**/*.ts", "a.ts", true],
      ["**/*.ts", "x/y/z/a.ts", true],
      ["src/**/*.ts", "src/a.ts", true],
      ["src/**/*.ts", "src/deep/er/a.ts", true],
      ["src/**/*.ts", "lib/a.ts", false],
      ["src/**", "src/a/b/c", true],
      ["src/**", "src/", true],
      ["src/**", "src", false],
      ["**", "", true],
      ["**", "a/b/c", true],
      ["***", "a/b", true],
      ["a/**/", "a/", true],
      ["a/**/", "a/b/c/", true],
      ["a/**/", "a/b", false],
      ["a**b", "axxb", true],
      ["a**b", "ax/xb", false],
      ["**b", "x/b", false],
      ["b**", "bx/y", false],
      ["x{**,y}", "xa/b", true],
      ["{**/,}a", "x/y/a", true],
    ]);
  });

  it("classes: sets, ranges, negation; never /", () => {
    table(glob, [
      ["file[0-9].txt", "file7.txt", true],
      ["file[0-9].txt", "filex.txt", false],
      ["file[!0-9].txt", "file7.txt", false],
      ["file[!0-9].txt", "filex.txt", true],
      ["file[^0-9].txt", "filex.txt", true],
      ["[abc]", "b", true],
      ["[abc]", "d", false],
      ["[a-c-e]", "-", true],
      ["[a-c-e]", "d", false],
      ["[a-]", "-", true],
      ["[!-a]", "b", true],
      ["[!-a]", "-", false],
      ["[]]", "]", true],
      ["[]a]", "a", true],
      ["[!]]", "a]", true],
      ["[!]]", "a", false],
      ["[!]", "x", true],
      ["[\\]", "\\", true],
      ["[z-a]", "m", false],
      // A class never matches `/`, negated or not (the old RegExp translation let these through).
      ["a[!b]c", "a/c", false],
      ["a[^b]c", "a/c", false],
      ["a[/]c", "a/c", false],
      ["a[.-0]c", "a/c", false],
      ["a[.-0]c", "a0c", true],
      ["[!]", "/", false],
    ]);
  });

  it("escapes, literals and unclosed brackets or braces", () => {
    table(glob, [
      ["\\*.txt", "*.txt", true],
      ["\\*.txt", "a.txt", false],
      ["\\?", "?", true],
      ["\\[a]", "[a]", true],
      ["\\{a,b}", "{a,b}", true],
      ["a\\", "a\\", true],
      ["a+b(c).txt", "a+b(c).txt", true],
      ["a.txt", "abtxt", false],
      ["^$|", "^$|", true],
      ["{unclosed", "{unclosed", true],
      ["[unclosed", "[unclosed", true],
      ["[]", "[]", true],
      ["a]b}c,", "a]b}c,", true],
      ["{a,{b}", "{a,b", true],
      ["{a\\,b}", "a,b", true],
      ["{a\\}", "{a}", true],
      [".env", ".env", true],
      ["*", ".hidden", true],
      ["A.ts", "a.ts", false],
    ]);
  });

  it("braces: alternatives, nested, empty, each a glob of its own", () => {
    table(glob, [
      ["*.{ts,tsx}", "a.tsx", true],
      ["*.{ts,tsx}", "a.ts", true],
      ["*.{ts,tsx}", "a.js", false],
      ["{src,lib/{a,b}}/x", "lib/b/x", true],
      ["{src,lib/{a,b}}/x", "lib/c/x", false],
      ["{src,lib/{a,b}}/x", "src/x", true],
      ["a{,b}", "a", true],
      ["a{,b}", "ab", true],
      ["{}", "", true],
      ["{a}", "a", true],
      ["{a,b}{a,b}{a,b}", "bab", true],
      ["{a,b}{a,b}{a,b}", "ba", false],
      ["{[a,b]}", "[a", true],
      ["{[a,b]}", "b]", true],
      ["{[a,b]}", "a", false],
      ["{*.ts,src/**}", "src/a/b", true],
      ["{a,{a,{a,{a,b}}}}", "b", true],
      ["{a,{a,{a,{a,b}}}}", "ab", false],
    ]);
  });

  it("handles the empty pattern and the empty path", () => {
    table(glob, [
      ["", "", true],
      ["", "a", false],
      ["a", "", false],
      ["?", "", false],
    ]);
  });
});

describe("pattern length limit", () => {
  it("throws PatternTooLongError above the limit; values may be any length", () => {
    const long = "a".repeat(MAX_PATTERN_LENGTH + 1);
    expect(() => wildcard(long)).toThrow(PatternTooLongError);
    expect(() => glob(long)).toThrow(PatternTooLongError);
    expect(() => glob(long)).toThrow(/too long.*4097.*4096/);
    const atLimit = "a".repeat(MAX_PATTERN_LENGTH);
    expect(wildcard(atLimit)(atLimit)).toBe(true);
    expect(glob(atLimit)(atLimit)).toBe(true);
    expect(wildcard("*")("x".repeat(1_000_000))).toBe(true);
  });
});

/** Returns the result of `run` and asserts it took under a second. */
function fast<T>(run: () => T): T {
  const start = performance.now();
  const result = run();
  expect(performance.now() - start).toBeLessThan(1000);
  return result;
}

describe("pathological patterns finish quickly (a backtracking engine would hang)", () => {
  const tenStars = "*a*a*a*a*a*a*a*a*a*c";

  it("many stars against long runs of the same character", () => {
    for (const n of [40, 10_000]) {
      const value = "a".repeat(n);
      expect(fast(() => wildcard(tenStars)(value))).toBe(false);
      expect(fast(() => glob(tenStars)(value))).toBe(false);
      expect(fast(() => wildcard(tenStars)(`${value}c`))).toBe(true);
      expect(fast(() => glob(tenStars)(`${value}c`))).toBe(true);
    }
    expect(fast(() => wildcard("*a".repeat(200) + "*c")("a".repeat(10_000)))).toBe(false);
  });

  it("stacked ** segments against deep paths", () => {
    const deep = "a/".repeat(5_000);
    expect(fast(() => glob("**/**/**/**/**/x")(`${deep}y`))).toBe(false);
    expect(fast(() => glob("**/**/**/**/**/x")(`${deep}x`))).toBe(true);
    expect(fast(() => glob("**/*a*a*a*a*a*/**/x")(`${"a".repeat(40)}/`.repeat(200) + "y"))).toBe(false);
  });

  it("nested and repeated braces compile to alternation, not expansion", () => {
    expect(fast(() => glob("{a,{a,{a,{a,b}}}}".repeat(200))("a".repeat(199) + "c"))).toBe(false);
    const repeated = "{a,b}".repeat(800); // 2^800 expansions
    expect(fast(() => glob(repeated)("ab".repeat(400)))).toBe(true);
    expect(fast(() => glob(repeated)("ab".repeat(399) + "a"))).toBe(false);
    const nested = "{".repeat(2000) + "a" + "}".repeat(2000);
    expect(fast(() => glob(nested)("a"))).toBe(true);
    expect(fast(() => glob("{".repeat(4096))("{".repeat(4096)))).toBe(true);
    expect(fast(() => glob("[".repeat(4096))("[".repeat(4096)))).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------
// Differential test against the RegExp translations the matcher replaces.

/** The old permission wildcard translation (server/permission/evaluate.ts). */
function referenceWildcard(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${body}$`, "s");
}

/** Deliberate change: a trailing " *" is optional. */
function expectedWildcard(pattern: string, value: string): boolean {
  if (referenceWildcard(pattern).test(value)) return true;
  return pattern.endsWith(" *") && referenceWildcard(pattern.slice(0, -2)).test(value);
}

const SPECIAL = /[.+^$()|[\]\\{}*?/]/;

function escapeChar(c: string): string {
  return SPECIAL.test(c) ? `\\${c}` : c;
}

function closingBrace(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    const c = glob[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function alternatives(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      out.push(body.slice(start, i));
      start = i + 1;
    }
  }
  out.push(body.slice(start));
  return out;
}

/**
 * The old glob translation (server/tool/glob-match.ts), with the one deliberate change
 * applied: `(?!/)` before each class, because a class no longer matches `/`.
 */
function translate(glob: string): string {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const c = glob[i] as string;
    if (c === "\\") {
      const next = glob[i + 1];
      out += next === undefined ? "\\\\" : escapeChar(next);
      i += 2;
    } else if (c === "*") {
      let j = i;
      while (glob[j] === "*") j++;
      const stars = j - i;
      const segmentStart = i === 0 || glob[i - 1] === "/";
      const segmentEnd = j === glob.length || glob[j] === "/";
      if (stars >= 2 && segmentStart && segmentEnd) {
        if (j === glob.length) {
          out += ".*";
          i = j;
        } else {
          out += "(?:[^/]*/)*";
          i = j + 1;
        }
      } else {
        out += "[^/]*";
        i = j;
      }
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) {
        out += "\\[";
        i++;
      } else {
        let body = glob.slice(i + 1, close);
        const negate = body.startsWith("!") || body.startsWith("^");
        if (negate) body = body.slice(1);
        out += `(?!/)[${negate ? "^" : ""}${body.replace(/\\/g, "\\\\").replace(/]/g, "\\]")}]`;
        i = close + 1;
      }
    } else if (c === "{") {
      const close = closingBrace(glob, i);
      if (close === -1) {
        out += "\\{";
        i++;
      } else {
        out += `(?:${alternatives(glob.slice(i + 1, close)).map(translate).join("|")})`;
        i = close + 1;
      }
    } else {
      out += escapeChar(c);
      i++;
    }
  }
  return out;
}

/** The reference glob, or undefined where the old translation threw (a reversed range like `[b-a]`). */
function referenceGlob(pattern: string): RegExp | undefined {
  try {
    return new RegExp(`^${translate(pattern)}$`);
  } catch {
    return undefined;
  }
}


function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function randomString(random: () => number, alphabet: readonly string[], maxLength: number): string {
  const length = Math.floor(random() * (maxLength + 1));
  let out = "";
  for (let i = 0; i < length; i++) out += pick(random, alphabet);
  return out;
}

/** A value shaped like the pattern (so that many cases match): metacharacters replaced at random. */
function valueLike(random: () => number, pattern: string, plain: readonly string[], meta: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\" && meta.includes(c) && random() < 0.7) out += pattern[++i] ?? ""; // usually honour the escape
    else if (!meta.includes(c)) out += c;
    else if (random() < 0.7) out += randomString(random, plain, 2);
    else if (random() < 0.5) out += c;
  }
  return out;
}

describe("differential test against the old RegExp translations", () => {
  it("wildcard agrees on random patterns and values", () => {
    const random = seededRandom(0x5eed);
    const patternAlphabet = ["a", "b", " ", "*", "?", "/", "\n", ".", "\\", "[", "{", "+"];
    const valueAlphabet = ["a", "b", " ", "/", "\n", "."];
    let positives = 0;
    for (let n = 0; n < 4000; n++) {
      const pattern = randomString(random, patternAlphabet, 8);
      const value = random() < 0.5 ? randomString(random, valueAlphabet, 8) : valueLike(random, pattern, valueAlphabet, "*?");
      const expected = expectedWildcard(pattern, value);
      if (expected) positives++;
      expect({ pattern, value, result: wildcard(pattern)(value) }).toEqual({ pattern, value, result: expected });
    }
    expect(positives).toBeGreaterThan(400);
  });

  it("glob agrees on random patterns and values", () => {
    const random = seededRandom(0xc0ffee);
    const single = ["a", "b", "/", ".", "*", "**", "?", "[", "]", "!", "^", "-", "{", "}", ",", "\\", "/**/"];
    const composite = ["[ab]", "[!a]", "[a-]", "[-b]", "[.-a]", "[]a]", "{a,", "{,", "\\,", "\\}", "\\*"];
    const tokens = [...single, ...single, ...composite];
    const valueAlphabet = ["a", "b", "/", ".", "-", "[", "]", "{", ",", "!", "\\"];
    let positives = 0;
    let compared = 0;
    for (let n = 0; n < 20_000; n++) {
      const pattern = randomString(random, tokens, 8);
      const reference = referenceGlob(pattern);
      if (!reference) continue;
      const matcher = glob(pattern);
      for (let k = 0; k < 4; k++) {
        const value = random() < 0.3 ? randomString(random, valueAlphabet.slice(0, 4), 8) : valueLike(random, pattern, random() < 0.5 ? valueAlphabet.slice(0, 4) : valueAlphabet, "*?[]!^-{},\\");
        const expected = reference.test(value);
        if (expected) positives++;
        compared++;
        expect({ pattern, value, result: matcher(value) }).toEqual({ pattern, value, result: expected });
      }
    }
    expect(compared).toBeGreaterThan(60_000);
    expect(positives).toBeGreaterThan(5_000);
  });
});
