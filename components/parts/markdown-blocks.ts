/**
 * Splits markdown into top-level pieces that render the same apart as together, so that a
 * streaming message re-parses only its last piece: the ones before it no longer change.
 * The pieces joined give back the text exactly.
 *
 * A piece starts at a line that follows a blank line and is not indented (an indented line
 * continues a list item or indented code), unless it is a list item right after a list (it
 * continues that list) or inside a fenced code block or an HTML block that blank lines do
 * not end (`<pre>`, `<!--`, …).
 * Text holding a link reference or footnote definition (`[x]: …`, `[^1]: …`) is kept
 * whole, since a definition applies to the whole document.
 */

const DEFINITION = /^ {0,3}\[(?:[^\]\\\n]|\\.)+\]:/m;
const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const LIST_ITEM = /^(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
/** HTML blocks of kinds 1–5 (CommonMark 4.6): they run to their end marker, across blank lines. */
const HTML_BLOCKS: Array<{ start: RegExp; end: RegExp }> = [
  { start: /^ {0,3}<(?:pre|script|style|textarea)(?:[\s>]|$)/i, end: /<\/(?:pre|script|style|textarea)>/i },
  { start: /^ {0,3}<!--/, end: /-->/ },
  { start: /^ {0,3}<\?/, end: /\?>/ },
  { start: /^ {0,3}<![A-Za-z]/, end: />/ },
  { start: /^ {0,3}<!\[CDATA\[/, end: /\]\]>/ },
];

interface Fence {
  marker: string;
}

/** The fence a line opens, if it opens one (an info string after backticks holds none). */
function opening(line: string): Fence | undefined {
  const m = FENCE.exec(line);
  if (!m) return undefined;
  const marker = m[2] ?? "";
  if (marker.startsWith("`") && (m[3] ?? "").includes("`")) return undefined;
  return { marker };
}

/** Whether a line closes `fence`: the same character, at least as many, nothing after. */
function closes(line: string, fence: Fence): boolean {
  const m = FENCE.exec(line);
  if (!m) return false;
  const marker = m[2] ?? "";
  return marker[0] === fence.marker[0] && marker.length >= fence.marker.length && (m[3] ?? "").trim() === "";
}

export function markdownBlocks(text: string): string[] {
  if (DEFINITION.test(text)) return [text];
  const blocks: string[] = [];
  let start = 0;
  let fence: Fence | undefined;
  let html: RegExp | undefined;
  let afterBlank = false;
  let inList = false;
  let at = 0;
  while (at < text.length) {
    const newline = text.indexOf("\n", at);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(at, end).replace(/\r$/, "");
    if (fence) {
      if (closes(line, fence)) fence = undefined;
    } else if (html) {
      if (html.test(line)) html = undefined;
    } else if (line.trim() === "") {
      afterBlank = true;
    } else {
      const indented = /^[ \t]/.test(line);
      const item = LIST_ITEM.test(line);
      if (afterBlank && at > start && !indented && !(item && inList)) {
        blocks.push(text.slice(start, at));
        start = at;
      }
      // A list goes on until a line that is not indented follows a blank line.
      if (!indented) inList = item || (inList && !afterBlank);
      afterBlank = false;
      fence = opening(line);
      const kind = fence ? undefined : HTML_BLOCKS.find((block) => block.start.test(line));
      if (kind && !kind.end.test(line)) html = kind.end;
    }
    at = end + 1;
  }
  if (start < text.length || blocks.length === 0) blocks.push(text.slice(start));
  return blocks;
}
