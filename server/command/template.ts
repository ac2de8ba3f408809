/**
 * A prompt command's template, as OpenCode expands it:
 *  - the arguments are split into words (a quoted string is one word, its quotes dropped);
 *  - `$1 … $n` are the words, the highest-numbered placeholder taking the rest of them;
 *  - `$ARGUMENTS` is the arguments as typed;
 *  - a template with neither gets the arguments appended after a blank line;
 *  - `` !`cmd` `` is replaced by the command's output (run by the caller: command.ts);
 *  - `@path` names a file included like an `@` mention.
 */

/** `` !`cmd` `` in a template. */
const SHELL = /!`([^`]+)`/g;
/** A word of the arguments: `[Image N]`, a quoted string, or a run of other characters. */
const ARGUMENT = /(?:\[Image\s+\d+\]|"[^"]*"|'[^']*'|[^\s"']+)/gi;
const PLACEHOLDER = /\$(\d+)/g;
const QUOTES = /^["']|["']$/g;
/** `@path`: not after a word character or a backtick (an e-mail address, a quoted reference), trailing punctuation left out. */
const FILE_REFERENCE = /(?<![\w`])@(\.?[^\s`,.]*(?:\.[^\s`,.]+)*)/g;

/** The template with its arguments in place. */
export function expand(template: string, argumentsText: string): string {
  const words = (argumentsText.match(ARGUMENT) ?? []).map((word) => word.replace(QUOTES, ""));
  const placeholders = template.match(PLACEHOLDER) ?? [];
  let last = 0;
  for (const item of placeholders) last = Math.max(last, Number(item.slice(1)));
  const numbered = template.replace(PLACEHOLDER, (_, index: string) => {
    const position = Number(index);
    if (position < 1 || position > words.length) return "";
    if (position === last) return words.slice(position - 1).join(" ");
    return words[position - 1] ?? "";
  });
  const usesArguments = template.includes("$ARGUMENTS");
  let expanded = numbered.replaceAll("$ARGUMENTS", () => argumentsText);
  if (placeholders.length === 0 && !usesArguments && argumentsText.trim()) expanded = `${expanded}\n\n${argumentsText}`;
  return expanded.trim();
}

/** The argument hints of a template, as the `/` menu shows them: `$1`, `$2`… then `$ARGUMENTS`. */
export function hints(template: string): string[] {
  const numbered = [...new Set(template.match(PLACEHOLDER) ?? [])].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  return [...numbered, ...(template.includes("$ARGUMENTS") ? ["$ARGUMENTS"] : [])];
}

/** The commands of `` !`cmd` `` blocks, in order. */
export function shellCommands(text: string): string[] {
  return [...text.matchAll(SHELL)].map((m) => m[1] ?? "").filter((command) => command.trim() !== "");
}

/** The text with each `` !`cmd` `` replaced by its output (`outputs` in the order of shellCommands). */
export function withOutputs(text: string, outputs: string[]): string {
  let i = 0;
  return text.replace(SHELL, (whole: string, command: string) => (command.trim() === "" ? whole : (outputs[i++] ?? "")));
}

/** The files `@path` names in a text, each once, in order. */
export function fileReferences(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(FILE_REFERENCE)) if (m[1]) found.add(m[1]);
  return [...found];
}
