import { FILE_HEADERS_ONLY, formatPatch } from "diff";
import { filePatch } from "../../lib/patch";

/**
 * Unified diffs for the write and edit tools, made with jsdiff (lib/patch.ts): a line diff
 * with 3 lines of context. What a plain line split would hide shows here: a last line that
 * lost or gained its newline is a changed line marked "\ No newline at end of file", and a
 * line-ending change (LF → CRLF) is a changed line whose new text ends in "\r".
 */

export interface FileDiff {
  /** Unified diff text (empty when nothing changed). */
  diff: string;
  additions: number;
  deletions: number;
}

/** A unified diff of two versions of `file` (a display name, e.g. the project-relative path). */
export function unifiedDiff(file: string, before: string, after: string, context = 3): FileDiff {
  const patch = filePatch(`a/${file}`, `b/${file}`, before, after, context);
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
