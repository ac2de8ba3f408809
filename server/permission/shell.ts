import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Language, Parser, type Node, type Tree } from "web-tree-sitter";

/**
 * A real shell parse of a `bash` tool command for permission checks. Rule patterns are
 * wildcards, so checking the whole command line against `echo *` would also allow
 * `echo ok; rm -rf ~`. Instead every simple command inside the line — the parts of
 * `;`, `&&`, `|`, subshells, loops, functions, `$(…)`, backticks, `<(…)`… — is returned
 * on its own, each to be checked against the rules, and anything the parser cannot
 * read with certainty is reported as not understood, so the caller asks every time.
 */

export interface ShellCommand {
  /** The simple command's own source text, without redirections (e.g. `git status -s`, `FOO=1 make`). */
  text: string;
  /** Its command name when it is a literal word (after leading VAR=value assignments), else undefined. */
  name: string | undefined;
  /** What an "always allow" should cover, e.g. `git status *`; undefined when no always may be offered. */
  always: string | undefined;
}

export interface ShellParse {
  commands: ShellCommand[];
  /** False when the parser could not understand the whole command: then the caller must ask, every time. */
  understood: boolean;
  /** Why not understood, for the UI (e.g. "syntax error", "the command name is computed at run time: $CMD"). */
  reason?: string;
}

/** Longer sources are not parsed at all (and so never understood). */
export const MAX_SOURCE_LENGTH = 100_000;
/** A parse taking longer than this is cancelled (tree-sitter is linear; this is a safety net). */
const PARSE_TIMEOUT_MS = 2_000;
/**
 * Beyond this many commands, or this many characters of command text in all (nested
 * substitutions repeat their text in every enclosing command), the source is not
 * understood: it bounds the work and the size of the permission request.
 */
const MAX_COMMANDS = 2_000;
const MAX_COMMAND_CHARS = 1_000_000;

/** Commands whose second word names what they do (`git status`), so an "always" keeps it. */
const SUBCOMMANDS = new Set(["git", "npm", "pnpm", "yarn", "bun", "npx", "cargo", "go", "docker", "kubectl", "pip", "pip3", "uv", "poetry", "make", "deno", "gh", "brew", "apt", "apt-get", "systemctl"]);
/** Package runners whose `run <script>` names the script too (`npm run build`). */
const RUNNERS = new Set(["npm", "pnpm", "yarn", "bun"]);

/**
 * Commands that run other code taken from their arguments (or stdin): an "always allow"
 * of `sudo *` or `bash *` would be a blank cheque, so none is offered for them.
 * `coproc` and `trap` are here too: `coproc rm x` runs `rm x`, `trap 'rm x' EXIT` runs its string.
 */
export const RUNS_OTHER_COMMANDS: ReadonlySet<string> = new Set([
  "eval", "exec", "source", ".", "sh", "bash", "zsh", "dash", "ksh", "fish", "env", "xargs", "sudo", "su", "doas",
  "timeout", "nice", "ionice", "nohup", "time", "command", "builtin", "setsid", "stdbuf", "watch", "parallel",
  "chroot", "unshare", "nsenter", "coproc", "trap",
]);

const ASSIGNMENT_WORD = /^[A-Za-z_][A-Za-z0-9_]*=/;
const PLAIN_WORD = /^[\w@][\w@:./-]*$/;

/** The prefix an "always allow" keeps from a command's words (assignments already removed). */
function wordsPrefix(words: readonly string[]): string {
  const first = words[0] ?? "";
  const plain = (w: string | undefined) => w !== undefined && PLAIN_WORD.test(w);
  if (!SUBCOMMANDS.has(first) || !plain(words[1])) return first;
  if (RUNNERS.has(first) && words[1] === "run" && plain(words[2])) return `${first} run ${words[2]}`;
  return `${first} ${words[1]}`;
}

/**
 * The leading words of a command that an "always allow" should cover: `git status -s` →
 * `git status`, `npm run build` → `npm run build`, `ls -la` → `ls`. Words of the form
 * `VAR=value` are skipped. Works on whitespace-split words, without parsing quotes.
 */
export function commandPrefix(command: string): string {
  return wordsPrefix(command.trim().split(/\s+/).filter((w) => !ASSIGNMENT_WORD.test(w)));
}

// ---------------------------------------------------------------------------------------
// Loading the grammar

let parserPromise: Promise<Parser> | undefined;

async function createParser(): Promise<Parser> {
  await Parser.init();
  const wasm = createRequire(import.meta.url).resolve(/* turbopackIgnore: true */ "tree-sitter-bash/tree-sitter-bash.wasm");
  const language = await Language.load(await readFile(wasm));
  return new Parser().setLanguage(language);
}

/** The bash parser, created once on first use; a failed load is retried by the next call. */
function loadParser(): Promise<Parser> {
  parserPromise ??= createParser().catch((error: unknown) => {
    parserPromise = undefined;
    throw error;
  });
  return parserPromise;
}

// ---------------------------------------------------------------------------------------
// Parsing

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A result that asks every time, with the whole source as its one command when nothing was found. */
function notUnderstood(source: string, reason: string, commands: ShellCommand[] = []): ShellParse {
  const found = commands.length > 0 ? commands : [{ text: source.trim(), name: undefined, always: undefined }];
  return { commands: found.map((c) => ({ ...c, always: undefined })), understood: false, reason };
}

/**
 * Split a shell command into its simple commands and say whether it was fully
 * understood. Never throws: a failure to load or run the parser is a `reason`.
 */
export async function parseShell(source: string): Promise<ShellParse> {
  if (source.length > MAX_SOURCE_LENGTH) return notUnderstood(source, "command too long to check");
  try {
    const parser = await loadParser();
    return parseWith(parser, source);
  } catch (error) {
    return notUnderstood(source, `the shell parser failed: ${errorMessage(error)}`);
  }
}

function parseWith(parser: Parser, source: string): ShellParse {
  const deadline = performance.now() + PARSE_TIMEOUT_MS;
  // Returning true from the progress callback cancels the parse (then `parse` returns null).
  const tree: Tree | null = parser.parse(source, null, { progressCallback: () => performance.now() > deadline });
  if (!tree) {
    parser.reset();
    return notUnderstood(source, "the command took too long to parse");
  }
  try {
    return analyse(tree.rootNode, source);
  } finally {
    tree.delete();
  }
}

// ---------------------------------------------------------------------------------------
// Walking the tree

/** A command found in the tree, with where it starts (to put nested ones in source order). */
interface Found {
  start: number;
  command: ShellCommand;
}

interface Walk {
  source: string;
  found: Found[];
  problems: string[];
  chars: number;
}

/** Parents under which a `variable_assignment` is part of something else, not a statement of its own. */
const ASSIGNMENT_HOLDERS = new Set(["command", "declaration_command", "variable_assignments", "c_style_for_statement"]);

function isCommandNode(node: Node, parentType: string): boolean {
  switch (node.type) {
    case "command":
    case "declaration_command":
    case "unset_command":
      return true;
    case "variable_assignment":
    case "variable_assignments":
      return !ASSIGNMENT_HOLDERS.has(parentType);
    default:
      return false;
  }
}

/** Every command of the tree (in source order) and whatever makes the source not understood. */
function analyse(root: Node, source: string): ShellParse {
  const walk: Walk = { source, found: [], problems: root.hasError ? ["syntax error"] : [], chars: 0 };
  visitAll(root, walk);
  const commands = walk.found.sort((a, b) => a.start - b.start).map((f) => f.command);
  if (commands.length === 0) return notUnderstood(source, walk.problems[0] ?? "no command found");
  const reason = walk.problems[0];
  if (reason !== undefined) return notUnderstood(source, reason, commands);
  return { commands, understood: true };
}

/** Depth-first over every named node, with an explicit stack: deep nesting cannot overflow the call stack. */
function visitAll(root: Node, walk: Walk): void {
  const stack: { node: Node; parentType: string }[] = [{ node: root, parentType: "" }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { node, parentType } = item;
    if (isCommandNode(node, parentType) && !record(node, walk)) return;
    const redirectProblem = redirectionProblem(node);
    if (redirectProblem !== undefined) walk.problems.push(redirectProblem);
    const children = node.namedChildren;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push({ node: child, parentType: node.type });
    }
  }
}

/** Add a command to the walk; false (with a problem noted) once there are too many to check. */
function record(node: Node, walk: Walk): boolean {
  const { command, problem } = describe(node, walk.source);
  walk.chars += command.text.length;
  if (walk.found.length >= MAX_COMMANDS || walk.chars > MAX_COMMAND_CHARS) {
    walk.problems.unshift("too many commands to check");
    return false;
  }
  walk.found.push({ start: node.startIndex, command });
  if (problem !== undefined) walk.problems.push(problem);
  return true;
}

/**
 * tree-sitter-bash reads `echo a > f b` as a redirection to `f b` and `cat <<EOF x` as a
 * heredoc with an argument, while bash passes `b` and `x` to the command: the command
 * text would then miss words bash runs with, so such a source is not understood.
 */
function redirectionProblem(node: Node): string | undefined {
  if (!node.type.endsWith("_redirect")) return undefined;
  const extra = node.childrenForFieldName("destination").length > 1 || node.childrenForFieldName("argument").length > 0;
  return extra ? `words after a redirection are not checked: ${node.text}` : undefined;
}

// ---------------------------------------------------------------------------------------
// One command

function describe(node: Node, source: string): { command: ShellCommand; problem?: string } {
  switch (node.type) {
    case "command":
      return describeSimple(node, source);
    case "declaration_command":
    case "unset_command":
      // `export`, `local`, `declare`, `readonly`, `typeset`, `unset`: change the environment
      // the other commands run in (PATH…), so never covered by an "always".
      return { command: { text: node.text, name: node.child(0)?.text, always: undefined } };
    default:
      // A bare `X=1` statement: no name, and never an "always" (it may set PATH).
      return { command: { text: node.text, name: undefined, always: undefined } };
  }
}

function describeSimple(node: Node, source: string): { command: ShellCommand; problem?: string } {
  const text = textWithoutRedirects(node, source);
  const nameNode = node.childForFieldName("name");
  const name = nameNode ? literalName(nameNode) : undefined;
  if (nameNode === null || name === undefined) {
    return {
      command: { text, name: undefined, always: undefined },
      problem: `the command name is computed at run time: ${nameNode?.text ?? text}`,
    };
  }
  const words = [nameNode.text, ...node.childrenForFieldName("argument").map((a) => a.text)];
  return { command: { text, name, always: alwaysFor(name, words) } };
}

/**
 * The "always allow" pattern of a command: its prefix (from the words as written, so the
 * pattern matches the command text) followed by ` *`. None for commands that run other
 * code, nor when the prefix holds a wildcard character (`*` and `?` cannot be escaped in
 * a rule, so `'r*' x` would otherwise allow `'rm' -rf ~`).
 */
function alwaysFor(name: string, words: readonly string[]): string | undefined {
  const base = name.slice(name.lastIndexOf("/") + 1);
  if (RUNS_OTHER_COMMANDS.has(base)) return undefined;
  const prefix = wordsPrefix(words);
  if (prefix === "" || /[*?]/.test(prefix)) return undefined;
  return `${prefix} *`;
}

/** The command's source without its redirections (`2>&1 cat <<< x` → `cat`), gaps joined by one space. */
function textWithoutRedirects(node: Node, source: string): string {
  const pieces: string[] = [];
  let start: number | undefined;
  let end = 0;
  for (const child of node.children) {
    if (child.type.endsWith("_redirect")) {
      if (start !== undefined) pieces.push(source.slice(start, end));
      start = undefined;
      continue;
    }
    start ??= child.startIndex;
    end = child.endIndex;
  }
  if (start !== undefined) pieces.push(source.slice(start, end));
  return pieces.join(" ");
}

// ---------------------------------------------------------------------------------------
// Literal words

/** The value of a `command_name` when it is fixed in the source: a word, a quoted string or both joined. */
function literalName(commandName: Node): string | undefined {
  const parts = commandName.namedChildren;
  const only = parts[0];
  return parts.length === 1 && only ? literalValue(only) : undefined;
}

function literalValue(node: Node): string | undefined {
  switch (node.type) {
    case "word":
      return unescapeWord(node.text);
    case "raw_string":
      return node.text.slice(1, -1);
    case "string":
      return node.namedChildren.every((c) => c.type === "string_content") ? unescapeDoubleQuoted(node.text.slice(1, -1)) : undefined;
    case "concatenation":
      return joinLiterals(node.children);
    default:
      return undefined;
  }
}

function joinLiterals(parts: readonly Node[]): string | undefined {
  let value = "";
  for (const part of parts) {
    const piece = part.isNamed ? literalValue(part) : undefined;
    if (piece === undefined) return undefined;
    value += piece;
  }
  return value;
}

/** Characters that make bash expand an unquoted word at run time (globs, braces, expansions). */
const EXPANDING = new Set(["*", "?", "[", "{", "$", "`"]);

/** An unquoted word with its backslashes removed, or undefined when bash would expand it. */
function unescapeWord(text: string): string | undefined {
  let value = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === "\\") {
      const next = text.charAt(++i);
      if (next !== "\n") value += next;
    } else if (EXPANDING.has(c)) {
      return undefined;
    } else {
      value += c;
    }
  }
  return value;
}

/** Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and a newline. */
function unescapeDoubleQuoted(content: string): string {
  return content.replace(/\\([$`"\\\n])/g, (_match, c: string) => (c === "\n" ? "" : c));
}
