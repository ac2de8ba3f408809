/**
 * `@` mentions of project files in the composer's text: which one the caret is in (to
 * offer completions), putting a chosen path in its place, and which chosen files the text
 * still mentions when it is sent.
 */

export interface ActiveMention {
  /** Index of the `@`. */
  start: number;
  /** What was typed after it, up to the caret ("src/gr"). */
  query: string;
}

/** The mention being typed at `caret`: an `@` at the start or after a space, then no space up to the caret. */
export function activeMention(text: string, caret: number): ActiveMention | undefined {
  const before = text.slice(0, caret);
  const match = /(?:^|\s)@([^\s@]*)$/.exec(before);
  if (!match) return undefined;
  const query = match[1] ?? "";
  return { start: caret - query.length - 1, query };
}

/** The text with the mention at `mention` (up to `caret`) replaced by `@<path> `, and where the caret goes. */
export function insertMention(text: string, mention: ActiveMention, caret: number, path: string): { text: string; caret: number } {
  const after = text.slice(caret).replace(/^[^\s@]*/, "");
  const inserted = `@${path}${/^\s/.test(after) ? "" : " "}`;
  const next = text.slice(0, mention.start) + inserted + after;
  return { text: next, caret: mention.start + inserted.length + (/^\s/.test(after) ? 1 : 0) };
}

function escape(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The chosen paths the text still mentions (`@path` followed by a space, punctuation or the end), in the order chosen. */
export function mentionedPaths(text: string, chosen: Iterable<string>): string[] {
  return [...new Set(chosen)].filter((path) => new RegExp(`(?:^|\\s)@${escape(path)}(?=$|[\\s,.;:!?)])`).test(text));
}
