import { createRequire } from "node:module";
import { beforeAll, describe, expect, it } from "vitest";
import { highlightLines, isLoaded, languageOf, loadLanguages } from "./highlight";
import { LANGUAGE_ALIASES, LANGUAGE_LOADERS, fencedLanguages, grammarOf } from "./highlight-languages";

describe("languages on demand", () => {
  it("highlights nothing before a grammar is loaded, and the language once it is", async () => {
    expect(isLoaded("go")).toBe(false);
    expect(highlightLines("package main", "go")).toEqual([[{ text: "package main", className: undefined }]]);
    await loadLanguages(["golang", "no-such-language"]);
    expect(isLoaded("go")).toBe(true);
    expect(isLoaded("rust")).toBe(false);
    expect(highlightLines("package main", "go")[0]).toContainEqual({ text: "package", className: "hljs-keyword" });
  });

  it("knows highlight.js's own aliases of each grammar without loading it", async () => {
    const require = createRequire(import.meta.url);
    const hljs: unknown = require("highlight.js/lib/core");
    for (const [name, load] of Object.entries(LANGUAGE_LOADERS)) {
      const grammar = (await load()).default;
      const aliases = (grammar(hljs as Parameters<typeof grammar>[0]).aliases ?? []).map((a) => a.toLowerCase());
      for (const alias of aliases) expect(LANGUAGE_ALIASES[alias], `${name}: ${alias}`).toBe(name);
      expect(grammarOf(name.toUpperCase())).toBe(name);
    }
    for (const [alias, name] of Object.entries(LANGUAGE_ALIASES)) expect(Object.hasOwn(LANGUAGE_LOADERS, name), alias).toBe(true);
  });

  it("finds the languages of a markdown text's fenced code", () => {
    expect(fencedLanguages("Intro\n\n```ts\nx\n```\n\n~~~ Python\ny\n~~~\n```\nplain\n```\n```nope\nz\n```\n```ts\nw\n```")).toEqual(["typescript", "python"]);
  });
});

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
  beforeAll(() => loadLanguages(["ts", "js"]));

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
