/**
 * What the start of a message asks for, beyond a prompt: `/name arguments` runs a prompt
 * command (the `/` menu completes its name), `!command` runs a command in the sandbox.
 */

/** A command as the `/` menu lists it (server/command/command.ts `list`). */
export interface CommandOption {
  name: string;
  description?: string;
  /** The arguments it takes: `$1`, `$2`…, `$ARGUMENTS`. */
  hints: string[];
  source: "built-in" | "config" | "team" | "project";
}

/** The command name being typed: the message starts with `/` and the caret is in its first word. */
export function activeSlash(text: string, caret: number): { query: string } | undefined {
  const match = /^\/(\S*)/.exec(text);
  if (!match || caret < 1 || caret > match[0].length) return undefined;
  return { query: match[1] ?? "" };
}

/** Below this many characters a query matches names only (two letters are in most descriptions). */
const DESCRIPTION_QUERY = 3;

/** The commands matching what was typed: names starting with it first, then names containing it, then (for 3 characters or more) descriptions containing it. */
export function filterCommands<T extends CommandOption>(commands: readonly T[], query: string): T[] {
  const q = query.toLowerCase();
  const rank = (c: T): number => {
    const name = c.name.toLowerCase();
    if (name.startsWith(q)) return 0;
    if (name.includes(q)) return 1;
    return q.length >= DESCRIPTION_QUERY && c.description?.toLowerCase().includes(q) ? 2 : 3;
  };
  return commands
    .map((command, index) => ({ command, index, rank: rank(command) }))
    .filter((c) => c.rank < 3)
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((c) => c.command);
}

/** The text once a command's name is completed: `/name ` and whatever followed the name. */
export function completeCommand(text: string, name: string): string {
  const rest = text.replace(/^\/\S*/, "").replace(/^\s+/, "");
  return `/${name} ${rest}`;
}

/** `/name arguments` when `name` is one of `names` (anything else — `/etc/hosts?` — is a plain prompt). */
export function commandCall(text: string, names: ReadonlySet<string>): { name: string; arguments: string } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  const name = match?.[1];
  if (name === undefined || !names.has(name)) return undefined;
  return { name, arguments: (match?.[2] ?? "").trim() };
}

/** The command of a `!command` message (undefined for any other message, and for a lone `!`). */
export function shellCommand(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("!")) return undefined;
  const command = trimmed.slice(1).trim();
  return command === "" ? undefined : command;
}

/** What the composer will do with its text (shown beside the Send button): run it in the sandbox, run a command, or prompt. */
export function composerMode(text: string, names: ReadonlySet<string>): "shell" | "command" | "prompt" {
  if (/^\s*!/.test(text)) return "shell";
  return commandCall(text, names) ? "command" : "prompt";
}
