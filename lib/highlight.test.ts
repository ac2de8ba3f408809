import { describe, expect, it } from "vitest";
import { highlightLines, languageOf } from "./highlight";

describe("languageOf", () => {
  it("finds the language from the extension, through highlight.js aliases", () => {
    expect(languageOf("src/greet.ts")).toBe("ts");
    expect(languageOf("components/App.tsx")).toBe("tsx");
    expect(languageOf("scripts/run.py")).toBe("py");
    expect(languageOf("README.md")).toBe("md");
    expect(languageOf("config/app.YML")).toBe("yml");
    expect(languageOf("C:\\work\\main.rs")).toBe("rs");
    expect(languageOf("include/list.h")).toBe("c");
  });

  it("knows a few names without an extension, and nothing else", () => {
    expect(languageOf("Makefile")).toBe("makefile");
    expect(languageOf("notes")).toBeUndefined();
    expect(languageOf("archive.zzz")).toBeUndefined();
    expect(languageOf("trailing.")).toBeUndefined();
  });
});

describe("highlightLines", () => {
  it("gives each line its tokens with highlight.js classes", () => {
    const lines = highlightLines("const answer = 42;\nreturn answer;", "ts");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContainEqual({ text: "const", className: "hljs-keyword" });
    expect(lines[0]).toContainEqual({ text: "42", className: "hljs-number" });
    expect(lines[0]?.map((t) => t.text).join("")).toBe("const answer = 42;");
    expect(lines[1]?.map((t) => t.text).join("")).toBe("return answer;");
  });

  it("keeps a token that spans lines coloured on each of them", () => {
    const lines = highlightLines("/* one\ntwo */\nx", "js");
    expect(lines[0]).toEqual([{ text: "/* one", className: "hljs-comment" }]);
    expect(lines[1]).toEqual([{ text: "two */", className: "hljs-comment" }]);
    expect(lines[2]?.map((t) => t.text).join("")).toBe("x");
  });

  it("is plain text without a known language, keeping empty lines", () => {
    expect(highlightLines("a\n\nb", undefined)).toEqual([[{ text: "a", className: undefined }], [], [{ text: "b", className: undefined }]]);
    expect(highlightLines("<b>x</b>", "no-such-language")).toEqual([[{ text: "<b>x</b>", className: undefined }]]);
  });
});
