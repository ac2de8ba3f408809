import { createLowlight } from "lowlight";
import { LANGUAGE_LOADERS, grammarOf } from "./highlight-languages";

export { languageOf } from "./highlight-languages";

/**
 * Syntax highlighting: highlight.js (through lowlight, which returns a tree instead of
 * HTML), its grammars loaded on demand (lib/highlight-languages.ts) — `loadLanguages`
 * first, then highlight synchronously; a language not loaded yet is plain text. Code views
 * cut the tree into lines so each line can carry its number; a token spanning lines (a
 * block comment, a template string) keeps its classes on every line.
 */

type Lowlight = ReturnType<typeof createLowlight>;
export type HighlightRoot = ReturnType<Lowlight["highlight"]>;
type Node = HighlightRoot["children"][number];

const lowlight: Lowlight = createLowlight();
const loading = new Map<string, Promise<void>>();

/** Whether the grammar of `language` (a name or alias) is loaded: it highlights now. */
export function isLoaded(language: string): boolean {
  return lowlight.registered(language);
}

/** Loads the grammars of these languages (names or aliases; unknown ones are skipped). Never rejects. */
export async function loadLanguages(languages: readonly string[]): Promise<void> {
  const grammars = new Set(languages.map(grammarOf).filter((g): g is string => g !== undefined && !lowlight.registered(g)));
  await Promise.all(
    [...grammars].map((grammar) => {
      let pending = loading.get(grammar);
      if (!pending) {
        const loader = LANGUAGE_LOADERS[grammar];
        if (!loader) return Promise.resolve();
        pending = loader().then(
          (module) => lowlight.register(grammar, module.default),
          // A grammar that failed to download leaves its code plain; a later call tries again.
          () => void loading.delete(grammar),
        );
        loading.set(grammar, pending);
      }
      return pending;
    }),
  );
}

/** The highlighted tree of `code`, or undefined when its language is not loaded. */
export function highlightTree(code: string, language: string): HighlightRoot | undefined {
  return lowlight.registered(language) ? lowlight.highlight(language, code) : undefined;
}

/** A run of text in one line, with the highlight.js classes (`hljs-…`) of the token it belongs to. */
export interface Token {
  text: string;
  className: string | undefined;
}

/** `code` as lines of tokens; plain text (one token a line) without a loaded language. */
export function highlightLines(code: string, language: string | undefined): Token[][] {
  const lines: Token[][] = [[]];
  const push = (text: string, className: string | undefined) => {
    const parts = text.split("\n");
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part) lines[lines.length - 1]?.push({ text: part, className });
    });
  };
  const tree = language ? highlightTree(code, language) : undefined;
  if (!tree) {
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
  walk(tree.children, []);
  return lines;
}
