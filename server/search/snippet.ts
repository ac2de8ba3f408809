/**
 * Highlighted snippets, as data: a snippet is a list of segments, each plain text or a
 * match. Nothing is HTML, so the browser renders it escaped (React text) and marks the
 * matches with its own elements; no markup from a part ever reaches the page as markup.
 */

export interface Segment {
  text: string;
  match: boolean;
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** How many characters of context a snippet keeps before its first match, and in all. */
export const CONTEXT_BEFORE = 60;
export const SNIPPET_LENGTH = 220;

/** Whether `text` holds one of `words` (lower-cased) as a whole word. */
export function hasWord(text: string, words: ReadonlySet<string>): boolean {
  for (const found of text.matchAll(WORD)) if (words.has(found[0].toLowerCase())) return true;
  return false;
}

/** `text` cut into segments, whole words among `words` (lower-cased) marked. */
export function mark(text: string, words: ReadonlySet<string>): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  const push = (piece: string, match: boolean) => {
    if (!piece) return;
    const last = segments.at(-1);
    if (last && last.match === match) last.text += piece;
    else segments.push({ text: piece, match });
  };
  for (const found of text.matchAll(WORD)) {
    if (!words.has(found[0].toLowerCase())) continue;
    push(text.slice(at, found.index), false);
    push(found[0], true);
    at = found.index + found[0].length;
  }
  push(text.slice(at), false);
  return segments;
}

/** Case-insensitive occurrences of `needle` in `text` marked (a title's substring match). */
export function markSubstring(text: string, needle: string): Segment[] {
  const lower = text.toLowerCase();
  const target = needle.toLowerCase();
  if (!target) return [{ text, match: false }];
  const segments: Segment[] = [];
  let at = 0;
  for (let found = lower.indexOf(target); found !== -1; found = lower.indexOf(target, found + target.length)) {
    if (found > at) segments.push({ text: text.slice(at, found), match: false });
    segments.push({ text: text.slice(found, found + target.length), match: true });
    at = found + target.length;
  }
  if (at < text.length) segments.push({ text: text.slice(at), match: false });
  return segments;
}

/**
 * A window of `text` around its first marked word (or its start), whitespace collapsed,
 * "…" where it was cut, the words marked.
 */
export function excerpt(text: string, words: ReadonlySet<string>): Segment[] {
  let first = -1;
  for (const found of text.matchAll(WORD)) {
    if (words.has(found[0].toLowerCase())) {
      first = found.index;
      break;
    }
  }
  let start = Math.max(0, first - CONTEXT_BEFORE);
  // Start on a word's beginning, not inside one.
  while (start > 0 && start < first && /[\p{L}\p{N}\p{M}]/u.test(text.charAt(start - 1))) start++;
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  while (end < text.length && end > start && /[\p{L}\p{N}\p{M}]/u.test(text.charAt(end))) end--;
  if (end <= start) end = Math.min(text.length, start + SNIPPET_LENGTH);
  const window = text.slice(start, end).replace(/\s+/g, " ").trim();
  const segments = mark(window, words);
  if (start > 0) segments.unshift({ text: "… ", match: false });
  if (end < text.length) segments.push({ text: " …", match: false });
  return segments;
}
