import { type StructuredPatch, type StructuredPatchHunk, structuredPatch } from "diff";

/**
 * The patch between two versions of a file, made with jsdiff (the `diff` package), shared
 * by the edit and write tools (stored as unified diff text) and the browser (a pending edit
 * shown before it is applied). Very different large inputs (more than MAX_EDIT_LENGTH
 * changed lines) are not searched for a minimal diff: they become one hunk that removes
 * every old line and adds every new one.
 */

export const MAX_EDIT_LENGTH = 2000;
export const NO_NEWLINE = "\\ No newline at end of file";

export function filePatch(oldName: string, newName: string, before: string, after: string, context = 3): StructuredPatch {
  return (
    structuredPatch(oldName, newName, before, after, undefined, undefined, { context, maxEditLength: MAX_EDIT_LENGTH }) ??
    wholeReplacement(oldName, newName, before, after)
  );
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
export function wholeReplacement(oldFileName: string, newFileName: string, before: string, after: string): StructuredPatch {
  const removed = side(before, "-");
  const added = side(after, "+");
  const hunk: StructuredPatchHunk = { oldStart: 1, oldLines: removed.count, newStart: 1, newLines: added.count, lines: [...removed.lines, ...added.lines] };
  return { oldFileName, newFileName, oldHeader: undefined, newHeader: undefined, hunks: before === after ? [] : [hunk] };
}
