import { FILE_HEADERS_ONLY, type StructuredPatch, type StructuredPatchHunk, formatPatch, structuredPatch } from "diff";

/**
 * Unified diffs for the write and edit tools, made with jsdiff (the `diff` package): a
 * line diff with 3 lines of context. What a plain line split would hide shows here: a
 * last line that lost or gained its newline is a changed line marked
 * "\ No newline at end of file", and a line-ending change (LF → CRLF) is a changed line
 * whose new text ends in "\r". Very different large inputs (more than MAX_EDIT_LENGTH
 * changed lines) are not searched for a minimal diff: they show as all removed, all added.
 */

const MAX_EDIT_LENGTH = 2000;
const NO_NEWLINE = "\\ No newline at end of file";

export interface FileDiff {
  /** Unified diff text (empty when nothing changed). */
  diff: string;
  additions: number;
  deletions: number;
}

/** A unified diff of two versions of `file` (a display name, e.g. the project-relative path). */
export function unifiedDiff(file: string, before: string, after: string, context = 3): FileDiff {
  const oldName = `a/${file}`;
  const newName = `b/${file}`;
  const patch =
    structuredPatch(oldName, newName, before, after, undefined, undefined, { context, maxEditLength: MAX_EDIT_LENGTH }) ?? wholeReplacement(oldName, newName, before, after);
  if (patch.hunks.length === 0) return { diff: "", additions: 0, deletions: 0 };
  let additions = 0;
  let deletions = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++;
      else if (line.startsWith("-")) deletions++;
    }
  }
  return { diff: formatPatch(patch, FILE_HEADERS_ONLY).replace(/\n$/, ""), additions, deletions };
}

/** One text's lines, each prefixed with `sign`, and the marker when its last line has no newline. */
function side(text: string, sign: "-" | "+"): { lines: string[]; count: number } {
  if (text === "") return { lines: [], count: 0 };
  const parts = text.split("\n");
  const ended = parts[parts.length - 1] === "";
  if (ended) parts.pop();
  const lines = parts.map((line) => `${sign}${line}`);
  if (!ended) lines.push(NO_NEWLINE);
  return { lines, count: parts.length };
}

/** The patch that removes every line of `before` and adds every line of `after`. */
function wholeReplacement(oldFileName: string, newFileName: string, before: string, after: string): StructuredPatch {
  const removed = side(before, "-");
  const added = side(after, "+");
  const hunk: StructuredPatchHunk = { oldStart: 1, oldLines: removed.count, newStart: 1, newLines: added.count, lines: [...removed.lines, ...added.lines] };
  return { oldFileName, newFileName, oldHeader: undefined, newHeader: undefined, hunks: [hunk] };
}
