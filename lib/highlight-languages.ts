/**
 * The highlight.js languages Parley highlights (lowlight's `common` set), each loaded on
 * demand: a page with no code downloads no grammar, and a page with TypeScript downloads
 * only TypeScript's. The aliases are highlight.js's own (lib/highlight-languages.test.ts
 * checks them against the grammars), so a name is known without loading anything.
 */

type Grammar = typeof import("highlight.js/lib/languages/typescript").default;

/** One loader per language: a static import() each, so the bundler makes one small chunk per grammar. */
export const LANGUAGE_LOADERS: Record<string, () => Promise<{ default: Grammar }>> = {
  arduino: () => import("highlight.js/lib/languages/arduino"),
  bash: () => import("highlight.js/lib/languages/bash"),
  c: () => import("highlight.js/lib/languages/c"),
  cpp: () => import("highlight.js/lib/languages/cpp"),
  csharp: () => import("highlight.js/lib/languages/csharp"),
  css: () => import("highlight.js/lib/languages/css"),
  diff: () => import("highlight.js/lib/languages/diff"),
  go: () => import("highlight.js/lib/languages/go"),
  graphql: () => import("highlight.js/lib/languages/graphql"),
  ini: () => import("highlight.js/lib/languages/ini"),
  java: () => import("highlight.js/lib/languages/java"),
  javascript: () => import("highlight.js/lib/languages/javascript"),
  json: () => import("highlight.js/lib/languages/json"),
  kotlin: () => import("highlight.js/lib/languages/kotlin"),
  less: () => import("highlight.js/lib/languages/less"),
  lua: () => import("highlight.js/lib/languages/lua"),
  makefile: () => import("highlight.js/lib/languages/makefile"),
  markdown: () => import("highlight.js/lib/languages/markdown"),
  objectivec: () => import("highlight.js/lib/languages/objectivec"),
  perl: () => import("highlight.js/lib/languages/perl"),
  php: () => import("highlight.js/lib/languages/php"),
  "php-template": () => import("highlight.js/lib/languages/php-template"),
  plaintext: () => import("highlight.js/lib/languages/plaintext"),
  python: () => import("highlight.js/lib/languages/python"),
  "python-repl": () => import("highlight.js/lib/languages/python-repl"),
  r: () => import("highlight.js/lib/languages/r"),
  ruby: () => import("highlight.js/lib/languages/ruby"),
  rust: () => import("highlight.js/lib/languages/rust"),
  scss: () => import("highlight.js/lib/languages/scss"),
  shell: () => import("highlight.js/lib/languages/shell"),
  sql: () => import("highlight.js/lib/languages/sql"),
  swift: () => import("highlight.js/lib/languages/swift"),
  typescript: () => import("highlight.js/lib/languages/typescript"),
  vbnet: () => import("highlight.js/lib/languages/vbnet"),
  wasm: () => import("highlight.js/lib/languages/wasm"),
  xml: () => import("highlight.js/lib/languages/xml"),
  yaml: () => import("highlight.js/lib/languages/yaml"),
};

/** highlight.js's aliases of those languages (lower case). */
export const LANGUAGE_ALIASES: Record<string, string> = {
  ino: "arduino", sh: "bash", zsh: "bash", h: "c", cc: "cpp", "c++": "cpp", "h++": "cpp", hpp: "cpp", hh: "cpp", hxx: "cpp", cxx: "cpp",
  cs: "csharp", "c#": "csharp", patch: "diff", golang: "go", gql: "graphql", toml: "ini", jsp: "java",
  js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript", jsonc: "json", json5: "json", kt: "kotlin", kts: "kotlin",
  pluto: "lua", mk: "makefile", mak: "makefile", make: "makefile", md: "markdown", mkdown: "markdown", mkd: "markdown",
  mm: "objectivec", objc: "objectivec", "obj-c": "objectivec", "obj-c++": "objectivec", "objective-c++": "objectivec",
  pl: "perl", pm: "perl", text: "plaintext", txt: "plaintext", py: "python", gyp: "python", ipython: "python", pycon: "python-repl",
  rb: "ruby", gemspec: "ruby", podspec: "ruby", thor: "ruby", irb: "ruby", rs: "rust", console: "shell", shellsession: "shell",
  ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript", vb: "vbnet",
  html: "xml", xhtml: "xml", rss: "xml", atom: "xml", xjb: "xml", xsd: "xml", xsl: "xml", plist: "xml", wsf: "xml", svg: "xml", yml: "yaml",
};

/** The grammar a language name or alias belongs to; undefined for a language Parley does not highlight. */
export function grammarOf(name: string): string | undefined {
  const key = name.toLowerCase();
  if (Object.hasOwn(LANGUAGE_LOADERS, key)) return key;
  return Object.hasOwn(LANGUAGE_ALIASES, key) ? LANGUAGE_ALIASES[key] : undefined;
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
  return grammarOf(language) ? language : undefined;
}

/** The languages of the fenced code blocks (```ts) in a markdown text, as their grammars. */
export function fencedLanguages(markdown: string): string[] {
  const found = new Set<string>();
  for (const match of markdown.matchAll(/^[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*([^\s`~]+)/gm)) {
    const grammar = match[1] ? grammarOf(match[1]) : undefined;
    if (grammar) found.add(grammar);
  }
  return [...found];
}
