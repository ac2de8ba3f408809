import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "./markdown";

const render = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe("Markdown", () => {
  it("highlights fenced code with a language at every render, with the languages registered once", () => {
    const text = "Intro.\n\n```ts\nconst answer = 42;\n```\n\nAfter.";
    const first = render(text);
    expect(first).toContain('<span class="hljs-keyword">const</span>');
    expect(render(text)).toBe(first);
    expect(render("```bash\necho hi\n```")).toContain("hljs-built_in");
  });

  it("renders the blocks of a text as siblings, in order", () => {
    const html = render("# Title\n\nOne.\n\n- a\n- b\n\nTwo.");
    expect(html).toMatch(/^<div class="[^"]*"><h1[^>]*>Title<\/h1>\s*<p[^>]*>One.<\/p>\s*<ul[^>]*>[\s\S]*<\/ul>\s*<p[^>]*>Two.<\/p><\/div>$/);
  });
});
