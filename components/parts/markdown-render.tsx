import type { Element, ElementContent, Root } from "hast";
import { memo, useMemo } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { highlightTree } from "@/lib/highlight";
import { fencedLanguages } from "@/lib/highlight-languages";
import { CodeBlock } from "./code-block";
import { markdownBlocks } from "./markdown-blocks";
import "./code-highlight.css";

/**
 * Markdown from the model or the user — the heavy half (react-markdown, remark-gfm and
 * highlighting), loaded on demand by markdown.tsx in the browser and used directly by
 * server-rendered pages. No rehype-raw: raw HTML in the source is shown as text, never
 * rendered, and react-markdown's default URL filter drops `javascript:` and other unsafe
 * links. Images are shown as links so a message cannot make the browser fetch arbitrary
 * URLs. Fenced code with a language (```ts) is highlighted when that language's grammar is
 * loaded (lib/highlight.ts: the caller loads it first) — only the code's text is wrapped
 * in <span class="hljs-…"> elements, never parsed as HTML — and is plain otherwise.
 */
const REMARK_PLUGINS = [remarkGfm];

/** The text of a hast element (a <code>'s source). */
function textOf(node: ElementContent): string {
  if (node.type === "text") return node.value;
  return node.type === "element" ? node.children.map(textOf).join("") : "";
}

function highlightCode(code: Element): void {
  const classes = Array.isArray(code.properties.className) ? code.properties.className.map(String) : [];
  const language = classes.find((c) => c.startsWith("language-"))?.slice("language-".length);
  if (!language) return;
  const tree = highlightTree(textOf(code), language);
  if (!tree) return;
  code.properties.className = ["hljs", ...classes];
  code.children = tree.children.filter((child): child is ElementContent => child.type === "text" || child.type === "element");
}

/** A rehype plugin: each <pre><code class="language-…"> highlighted with its loaded grammar. */
function rehypeHighlightLoaded() {
  return (tree: Root) => {
    const visit = (node: Root | Element) => {
      for (const child of node.children) {
        if (child.type !== "element") continue;
        const code = child.tagName === "pre" ? child.children.find((c): c is Element => c.type === "element" && c.tagName === "code") : undefined;
        if (code) highlightCode(code);
        else visit(child);
      }
    };
    visit(tree);
  };
}
const REHYPE_PLUGINS = [rehypeHighlightLoaded];
/** Only fenced code with a language is highlighted: text without one skips the plugin. */
const FENCE_WITH_LANGUAGE = /(?:`{3,}|~{3,})[ \t]*[^\s`~]/;

const COMPONENTS: Components = {
  p: ({ children }) => <p className="my-2 leading-relaxed first:mt-0 last:mb-0">{children}</p>,
  // An unsafe URL (javascript: …) arrives here emptied: show the text only.
  a: ({ children, href }) =>
    !href ? (
      <span className="underline decoration-dotted">{children}</span>
    ) : (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow" className="font-medium text-indigo-600 underline decoration-indigo-300 underline-offset-2 hover:decoration-indigo-600">
        {children}
      </a>
    ),
  img: ({ src, alt }) =>
    typeof src === "string" && src ? (
      <a href={src} target="_blank" rel="noopener noreferrer nofollow" className="text-indigo-600 underline underline-offset-2">
        [image: {alt || src}]
      </a>
    ) : (
      <span>[image: {alt}]</span>
    ),
  h1: ({ children }) => <h1 className="mt-5 mb-2 text-xl font-semibold tracking-tight first:mt-0">{children}</h1>,
  h2: ({ children }) => <h2 className="mt-5 mb-2 text-lg font-semibold tracking-tight first:mt-0">{children}</h2>,
  h3: ({ children }) => <h3 className="mt-4 mb-1.5 text-base font-semibold first:mt-0">{children}</h3>,
  h4: ({ children }) => <h4 className="mt-3 mb-1 font-semibold first:mt-0">{children}</h4>,
  ul: ({ children, className }) => (
    <ul className={`my-2 space-y-1 pl-5 ${className?.includes("contains-task-list") ? "list-none pl-1" : "list-disc"} marker:text-zinc-400`}>{children}</ul>
  ),
  ol: ({ children, start }) => (
    <ol start={start} className="my-2 list-decimal space-y-1 pl-5 marker:text-zinc-400">
      {children}
    </ol>
  ),
  li: ({ children }) => <li className="leading-relaxed [&>input]:mr-1.5 [&>input]:align-middle">{children}</li>,
  blockquote: ({ children }) => <blockquote className="my-3 border-l-2 border-zinc-300 pl-3 text-zinc-600">{children}</blockquote>,
  hr: () => <hr className="my-4 border-zinc-200" />,
  code: ({ children, className }) => (
    <code className={`rounded bg-zinc-100 px-1 py-0.5 font-mono text-[0.85em] text-zinc-800 ${className ?? ""}`}>{children}</code>
  ),
  pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
  table: ({ children }) => (
    <div className="my-3 overflow-x-auto rounded-lg ring-1 ring-zinc-200">
      <table className="w-full border-collapse text-left text-sm">{children}</table>
    </div>
  ),
  thead: ({ children }) => <thead className="bg-zinc-50 text-zinc-700">{children}</thead>,
  th: ({ children, style }) => (
    <th style={style} className="border-b border-zinc-200 px-3 py-1.5 font-semibold">
      {children}
    </th>
  ),
  td: ({ children, style }) => (
    <td style={style} className="border-b border-zinc-100 px-3 py-1.5">
      {children}
    </td>
  ),
};

/**
 * Markdown rendered block by block (markdown-blocks.ts): while a message streams, only its
 * last block changes, so only that one is parsed (and highlighted) again — the blocks
 * before it keep their rendered form. react-markdown renders no wrapper, so the blocks'
 * elements are siblings, as they would be rendered whole.
 */
export function MarkdownView({ text, className = "", grammars = "" }: { text: string; className?: string | undefined; grammars?: string | undefined }) {
  const blocks = useMemo(() => markdownBlocks(text), [text]);
  const loaded = new Set(grammars.split(" "));
  return (
    <div className={`text-[15px] break-words text-zinc-800 ${className}`}>
      {blocks.map((block, index) => (
        // By position: a block's text only grows while it is the last one, then stays. Each
        // block is told only of its own languages' grammars: one loading while a long answer
        // streams re-renders the blocks in that language, not every block of the answer.
        <MarkdownBlock key={index} text={block} grammars={FENCE_WITH_LANGUAGE.test(block) ? fencedLanguages(block).filter((l) => loaded.has(l)).join(" ") : ""} />
      ))}
    </div>
  );
}

/** `grammars`: the languages loaded when rendered — a block renders again (highlighted) once its own has loaded. */
const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string; grammars: string }) {
  return (
    <ReactMarkdown remarkPlugins={REMARK_PLUGINS} rehypePlugins={FENCE_WITH_LANGUAGE.test(text) ? REHYPE_PLUGINS : undefined} components={COMPONENTS}>
      {text}
    </ReactMarkdown>
  );
});
