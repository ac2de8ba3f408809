import { common, createLowlight } from "lowlight";

/**
 * Syntax highlighting for code views: highlight.js (through lowlight, which returns a tree
 * instead of HTML) with its common languages, cut into lines so each line can carry its
 * number. A token spanning lines (a block comment, a template string) keeps its classes on
 * every line. Pure apart from the language registry, which is built once at first use.
 */

type Lowlight = ReturnType<typeof createLowlight>;
type Node = ReturnType<Lowlight["highlight"]>["children"][number];

let instance: Lowlight | undefined;
function lowlight(): Lowlight {
  instance ??= createLowlight(common);
  return instance;
}

/** A run of text in one line, with the highlight.js classes (`hljs-…`) of the token it belongs to. */
export interface Token {
  text: string;
  className: string | undefined;
}

/** File names with no telling extension. */
const FILE_NAMES: Record<string, string> = { makefile: "makefile", gnumakefile: "makefile", gemfile: "ruby", rakefile: "ruby", ".bashrc": "bash", ".zshrc": "bash", ".profile": "bash" };
/** Extensions highlight.js has no alias for. */
const EXTENSIONS: Record<string, string> = { h: "c", hh: "cpp", jsonc: "json", json5: "json", htm: "xml", vue: "xml", svelte: "xml", conf: "ini", cfg: "ini", env: "bash", mdx: "markdown" };

/** The highlight.js language of a file, from its name or extension; undefined when none is known. */
export function languageOf(path: string): string | undefined {
  const base = (path.split(/[\\/]/).pop() ?? "").toLowerCase();
  const named = FILE_NAMES[base];
  if (named) return named;
  const dot = base.lastIndexOf(".");
  if (dot === -1 || dot === base.length - 1) return undefined;
  const extension = base.slice(dot + 1);
  const language = EXTENSIONS[extension] ?? extension;
  return lowlight().registered(language) ? language : undefined;
}

/** `code` as lines of tokens; plain text (one token a line) without a language. */
export function highlightLines(code: string, language: string | undefined): Token[][] {
  const lines: Token[][] = [[]];
  const push = (text: string, className: string | undefined) => {
    const parts = text.split("\n");
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part) lines[lines.length - 1]?.push({ text: part, className });
    });
  };
  if (!language || !lowlight().registered(language)) {
    push(code, undefined);
    return lines;
  }
  const walk = (nodes: Node[], classes: string[]) => {
    for (const node of nodes) {
      if (node.type === "text") push(node.value, classes.length ? classes.join(" ") : undefined);
      else if (node.type === "element") {
        const own = node.properties.className;
        walk(node.children, Array.isArray(own) ? [...classes, ...own.map(String)] : classes);
      }
    }
  };
  walk(lowlight().highlight(language, code).children, []);
  return lines;
}
