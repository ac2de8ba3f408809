import { describe, expect, it } from "vitest";
import { terms, words } from "./query";
import { SNIPPET_LENGTH, excerpt, hasWord, mark, markSubstring } from "./snippet";

describe("search terms", () => {
  it("normalizes punctuation as the stored words do, drops empty terms and keeps at most eight", () => {
    expect(terms("src/session-list.tsx  foo_bar")).toEqual(["src session list tsx", "foo bar"]);
    expect(terms(" -- ... ")).toEqual([]);
    expect(terms("a b c d e f g h i j")).toHaveLength(8);
    expect([...words("Session-List.TSX Zebra")]).toEqual(["session", "list", "tsx", "zebra"]);
  });
});

describe("snippets", () => {
  it("marks whole words only, case-insensitively, and keeps the text as written", () => {
    const segments = mark("Zebra zebras ZEBRA", new Set(["zebra"]));
    expect(segments).toEqual([
      { text: "Zebra", match: true },
      { text: " zebras ", match: false },
      { text: "ZEBRA", match: true },
    ]);
    expect(hasWord("the zebras", new Set(["zebra"]))).toBe(false);
  });

  it("carries markup as text: <script> is a plain segment, the match is only the word", () => {
    const segments = mark('<script>alert("gnu")</script>', new Set(["gnu"]));
    expect(segments.map((s) => s.text).join("")).toBe('<script>alert("gnu")</script>');
    expect(segments.filter((s) => s.match)).toEqual([{ text: "gnu", match: true }]);
  });

  it("cuts a window around the first match, on word boundaries, with ellipses", () => {
    const text = `${"lorem ".repeat(100)}needle ${"ipsum ".repeat(100)}`;
    const segments = excerpt(text, new Set(["needle"]));
    const joined = segments.map((s) => s.text).join("");
    expect(joined.startsWith("… lorem")).toBe(true);
    expect(joined.endsWith(" …")).toBe(true);
    expect(joined.length).toBeLessThanOrEqual(SNIPPET_LENGTH + 4);
    expect(segments.filter((s) => s.match).map((s) => s.text)).toEqual(["needle"]);
  });

  it("marks a title's substring match", () => {
    expect(markSubstring("Fix login flow", "LOG")).toEqual([
      { text: "Fix ", match: false },
      { text: "log", match: true },
      { text: "in flow", match: false },
    ]);
  });
});
