import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { loadLanguages } from "@/lib/highlight";
import { Markdown } from "./markdown";
import { MarkdownView } from "./markdown-render";

const render = (text: string) => renderToStaticMarkup(createElement(MarkdownView, { text }));

describe("Markdown", () => {
  it("highlights fenced code once its language is loaded, the same at every render", async () => {
    const text = "Intro.\n\n```ts\nconst answer = 42;\n```\n\nAfter.";
    expect(render(text)).not.toContain("hljs-keyword");
    expect(render(text)).toContain("const answer = 42;");
    await loadLanguages(["ts", "bash"]);
    const first = render(text);
    expect(first).toContain('<span class="hljs-keyword">const</span>');
    expect(render(text)).toBe(first);
    expect(render("```bash\necho hi\n```")).toContain("hljs-built_in");
  });

  it("shows the text as written until the markdown stack has loaded in the browser", () => {
    const html = renderToStaticMarkup(createElement(Markdown, { text: "**bold** <b>x</b>" }));
    expect(html).toContain("**bold** &lt;b&gt;x&lt;/b&gt;");
    expect(html).not.toContain("<strong>");
  });

  it("renders the blocks of a text as siblings, in order", () => {
    const html = render("# Title\n\nOne.\n\n- a\n- b\n\nTwo.");
    expect(html).toMatch(/^<div class="[^"]*"><h1[^>]*>Title<\/h1>\s*<p[^>]*>One.<\/p>\s*<ul[^>]*>[\s\S]*<\/ul>\s*<p[^>]*>Two.<\/p><\/div>$/);
  });
});
