import { type StructuredPatch, type StructuredPatchHunk, diffWordsWithSpace, parsePatch } from "diff";
import { filePatch } from "./patch";

/**
 * What a diff view shows, from unified diff text (a tool's `metadata.diff`, a turn's
 * `git diff-tree -p`) or from two texts: files, hunks, and rows with their old and new
 * line numbers. A removed line followed by an added one is a pair, and a pair gets
 * word-level pieces (jsdiff's diffWordsWithSpace) so the view can mark what changed
 * inside the line. Pure: used by the browser, tested on its own.
 */

export type DiffRowKind = "context" | "add" | "del";

/** A piece of a changed line: `changed` when it is what the pair's other line lacks. */
export interface Segment {
  text: string;
  changed: boolean;
}

export interface DiffRow {
  kind: DiffRowKind;
  /** Line number in the old file (context and removed lines). */
  oldLine: number | undefined;
  /** Line number in the new file (context and added lines). */
  newLine: number | undefined;
  /** The line without its sign; a CRLF line keeps its "\r". */
  text: string;
  /** Word-level pieces when the line is paired with a line of the other side. */
  segments?: Segment[] | undefined;
  /** The file ends on this line without a newline ("\ No newline at end of file"). */
  noNewline: boolean;
}

export interface DiffHunk {
  header: string;
  rows: DiffRow[];
}

export type FileChange = "modified" | "added" | "deleted" | "renamed";

export interface DiffFile {
  /** The path shown for the file (the new one, or the old one when it was deleted). */
  name: string;
  /** The old path, when the file was renamed. */
  from: string | undefined;
  change: FileChange;
  binary: boolean;
  hunks: DiffHunk[];
  additions: number;
  deletions: number;
  /** Set when the only change is each line's ending, e.g. "LF → CRLF". */
  lineEndings: string | undefined;
}

export interface ParsedDiff {
  files: DiffFile[];
  /** False when the text was cut (a very long diff): its last, partial hunks were left out. */
  complete: boolean;
}

/** Longest line pair compared word by word; longer pairs are shown as whole-line changes. */
const MAX_WORD_DIFF_LENGTH = 1000;
/** A pair sharing less than this share of its text is a rewrite: no word marks. */
const MIN_SHARED = 0.3;
/** How many times a cut diff is shortened (by its last hunk) before it is given up on. */
const MAX_CUTS = 8;

/** Parses unified diff text; undefined when it is not one (the caller shows the text as it is). */
export function parseDiff(text: string): ParsedDiff | undefined {
  let lines = text.replace(/\n$/, "").split("\n");
  for (let cut = 0; cut <= MAX_CUTS; cut++) {
    const patches = tryParse(lines.join("\n"));
    if (patches) {
      const files = patches.filter((p) => p.hunks.length > 0 || p.oldFileName !== undefined || p.newFileName !== undefined).map(fileOf);
      return files.length > 0 && files.some((f) => f.hunks.length > 0 || f.binary || f.change !== "modified") ? { files, complete: cut === 0 } : undefined;
    }
    // A diff cut at a size limit ends inside a hunk: drop that hunk and try again.
    const last = lines.findLastIndex((line) => line.startsWith("@@ ") || line.startsWith("diff --git "));
    if (last <= 0) return undefined;
    lines = lines.slice(0, last);
  }
  return undefined;
}

function tryParse(text: string): StructuredPatch[] | undefined {
  try {
    return parsePatch(text);
  } catch (error) {
    // jsdiff reports a malformed or cut patch by throwing a plain Error; anything else is a bug.
    if (error instanceof Error) return undefined;
    throw error;
  }
}

/** The diff between two texts of `name` (a pending edit's old and new string), with every line as context. */
export function diffTexts(name: string, before: string, after: string): ParsedDiff {
  const patch = filePatch(`a/${name}`, `b/${name}`, before, after, Number.MAX_SAFE_INTEGER);
  return { files: [fileOf(patch)], complete: true };
}

const DEV_NULL = "/dev/null";

function stripPrefix(name: string | undefined, prefix: "a/" | "b/"): string | undefined {
  if (name === undefined || name === DEV_NULL) return undefined;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

function fileOf(patch: StructuredPatch): DiffFile {
  const oldName = stripPrefix(patch.oldFileName, "a/");
  const newName = stripPrefix(patch.newFileName, "b/");
  const change: FileChange =
    patch.isCreate || (patch.oldFileName === DEV_NULL && newName !== undefined)
      ? "added"
      : patch.isDelete || (patch.newFileName === DEV_NULL && oldName !== undefined)
        ? "deleted"
        : patch.isRename || (oldName !== undefined && newName !== undefined && oldName !== newName)
          ? "renamed"
          : "modified";
  const hunks = patch.hunks.map(hunkOf);
  let additions = 0;
  let deletions = 0;
  for (const hunk of hunks) {
    for (const row of hunk.rows) {
      if (row.kind === "add") additions++;
      else if (row.kind === "del") deletions++;
    }
  }
  return {
    name: newName ?? oldName ?? "",
    from: change === "renamed" ? oldName : undefined,
    change,
    binary: patch.isBinary === true,
    hunks,
    additions,
    deletions,
    lineEndings: lineEndingsOnly(hunks),
  };
}

function hunkOf(hunk: StructuredPatchHunk): DiffHunk {
  // parsePatch moves the start of an empty side up by one; the header shows it as written.
  const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
  const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
  const rows: DiffRow[] = [];
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  for (const line of hunk.lines) {
    const sign = line[0];
    if (sign === "\\") {
      const previous = rows[rows.length - 1];
      if (previous) previous.noNewline = true;
    } else if (sign === "-") {
      rows.push({ kind: "del", oldLine: oldLine++, newLine: undefined, text: line.slice(1), noNewline: false });
    } else if (sign === "+") {
      rows.push({ kind: "add", oldLine: undefined, newLine: newLine++, text: line.slice(1), noNewline: false });
    } else {
      rows.push({ kind: "context", oldLine: oldLine++, newLine: newLine++, text: line.slice(1), noNewline: false });
    }
  }
  markWords(rows);
  return { header: `@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`, rows };
}

/** Pairs each run of removed lines with the added lines right after it, and marks their words. */
function markWords(rows: DiffRow[]): void {
  let i = 0;
  while (i < rows.length) {
    if (rows[i]?.kind !== "del") {
      i++;
      continue;
    }
    const delStart = i;
    while (rows[i]?.kind === "del") i++;
    const addStart = i;
    while (rows[i]?.kind === "add") i++;
    const pairs = Math.min(addStart - delStart, i - addStart);
    for (let k = 0; k < pairs; k++) {
      const removed = rows[delStart + k];
      const added = rows[addStart + k];
      if (removed && added) pairWords(removed, added);
    }
  }
}

function pairWords(removed: DiffRow, added: DiffRow): void {
  if (removed.text.length > MAX_WORD_DIFF_LENGTH || added.text.length > MAX_WORD_DIFF_LENGTH) return;
  const changes = diffWordsWithSpace(removed.text, added.text);
  const shared = changes.reduce((sum, c) => (c.added || c.removed ? sum : sum + c.value.length), 0);
  const longest = Math.max(removed.text.length, added.text.length);
  if (longest > 0 && shared / longest < MIN_SHARED) return;
  removed.segments = changes.filter((c) => !c.added).map((c) => ({ text: c.value, changed: c.removed }));
  added.segments = changes.filter((c) => !c.removed).map((c) => ({ text: c.value, changed: c.added }));
}

/** "LF → CRLF" (or back) when every change only adds (or removes) the "\r" ending lines. */
function lineEndingsOnly(hunks: DiffHunk[]): string | undefined {
  let toCrlf = 0;
  let toLf = 0;
  for (const hunk of hunks) {
    const removed = hunk.rows.filter((r) => r.kind === "del");
    const added = hunk.rows.filter((r) => r.kind === "add");
    if (removed.length !== added.length) return undefined;
    for (const [k, del] of removed.entries()) {
      const add = added[k];
      if (!add || del.noNewline !== add.noNewline) return undefined;
      if (`${del.text}\r` === add.text) toCrlf++;
      else if (del.text === `${add.text}\r`) toLf++;
      else return undefined;
    }
  }
  if (toCrlf > 0 && toLf === 0) return "LF → CRLF";
  if (toLf > 0 && toCrlf === 0) return "CRLF → LF";
  return undefined;
}
