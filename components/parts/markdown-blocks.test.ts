import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { describe, expect, it } from "vitest";
import { markdownBlocks } from "./markdown-blocks";

/** A long answer of the kind a model streams: sections with every kind of block. */
function longAnswer(sections: number): string {
  const parts = ["# A long answer", "Some intro text."];
  for (let n = 1; n <= sections; n++) {
    parts.push(`## ${n}. Section`, `Paragraph ${n} with \`code\` and **bold**,\nwrapped over two lines.`);
    if (n % 2) parts.push(`- item ${n}a\n- item ${n}b\n\n- item ${n}c (loose)`);
    if (n % 3 === 0) parts.push(`\`\`\`ts\nconst n = ${n};\n\nfunction f${n}() {}\n\`\`\``);
    if (n % 4 === 0) parts.push(`1. first\n2. second\n\n   indented continuation of step ${n}`);
    if (n % 5 === 0) parts.push(`> **Note ${n}:** quoted.`);
    if (n % 7 === 0) parts.push(`| a | b |\n| --- | --- |\n| ${n} | ${n * 2} |`);
    parts.push(`Closing paragraph of section ${n}.`);
  }
  return parts.join("\n\n");
}

/** The HTML react-markdown makes of `text`, without the line breaks next to tags (between blocks). */
function html(text: string): string {
  return renderToStaticMarkup(createElement(ReactMarkdown, { remarkPlugins: [remarkGfm] }, text))
    .replace(/\s*\n\s*</g, "<")
    .replace(/>\s*\n\s*/g, ">");
}

const SAMPLES: Record<string, string> = {
  paragraphs: "First paragraph\nstill the first.\n\nSecond one.\n\n\nThird, after two blank lines.",
  headings: "# Title\n\nIntro.\n\nSetext\n===\n\n## Part\n\n---\n\nAfter a rule.",
  "a list with blank lines between items (loose) and a numbered one": "- a\n\n- b\n\n  continued\n- c\n\nNext.\n\n3. three\n\n4. four\n\n1) other",
  "fenced code with blank lines and unindented lines inside": "Code:\n\n```ts\nconst a = 1;\n\nfunction f() {}\n\n# not a heading\n```\n\nAfter.\n\n~~~\nx\n\n- y\n~~~~\n\nEnd.",
  "a fence in a list item": "1. Run:\n\n   ```bash\n   npm test\n\n   npm run build\n   ```\n\n2. Then:\n\nDone.",
  "a longer fence that a shorter one does not close": "````md\n```\n\ninner\n```\n\nstill code\n````\n\nOut.",
  "html blocks that blank lines do not end": "<!-- a comment\n\nstill the comment -->\n\nText.\n\n<pre>\n\nkept\n</pre>\n\nMore.",
  "indented code and quotes": "Para.\n\n    indented code\n\n    more code\n\n> quote\n\n> another quote\n\nEnd.",
  "a table": "| a | b |\n| --- | --- |\n| 1 | 2 |\n\nAfter the table.",
  "an unfinished fence (streaming)": "Intro.\n\n```ts\nconst x = 1;\n\nconst y",
  "CRLF line ends": "A\r\n\r\n```\r\ncode\r\n\r\nmore\r\n```\r\n\r\nB",
  "a long answer with every kind of block": longAnswer(40),
};

describe("markdownBlocks", () => {
  for (const [name, text] of Object.entries(SAMPLES)) {
    it(`splits ${name} into pieces that render as the whole does`, () => {
      const blocks = markdownBlocks(text);
      expect(blocks.join("")).toBe(text);
      expect(blocks.map(html).join("")).toBe(html(text));
    });
  }

  it("splits at blocks, not inside lists, fences or html blocks", () => {
    expect(markdownBlocks("# T\n\nA\nB\n\n- x\n\n- y\n\nC")).toEqual(["# T\n\n", "A\nB\n\n", "- x\n\n- y\n\n", "C"]);
    expect(markdownBlocks("```\na\n\nb\n```\n\nc")).toEqual(["```\na\n\nb\n```\n\n", "c"]);
    expect(markdownBlocks("<!--\n\nx\n-->\n\ny")).toEqual(["<!--\n\nx\n-->\n\n", "y"]);
    expect(markdownBlocks("")).toEqual([""]);
  });

  it("keeps text with a reference or footnote definition whole", () => {
    const text = "See [the docs][d] and this[^1].\n\n[d]: https://example.com\n\n[^1]: A footnote.";
    expect(markdownBlocks(text)).toEqual([text]);
  });

  it("leaves the earlier pieces of a growing text unchanged, so only the last one renders again", () => {
    const text = SAMPLES["a long answer with every kind of block"] ?? "";
    const full = markdownBlocks(text);
    expect(full.length).toBeGreaterThan(100);
    for (let end = 100; end < text.length; end += 97) {
      const blocks = markdownBlocks(text.slice(0, end));
      expect(blocks.slice(0, -1)).toEqual(full.slice(0, blocks.length - 1));
    }
  });
});
