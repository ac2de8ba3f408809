import path from "node:path";
import { outputDirectory } from "../tool/truncate";

/**
 * The server's folders taken out of what share viewers read: the project directory
 * becomes project-relative paths, a session's saved outputs `tool-output`, the data
 * directory and the folder of every team's projects a placeholder. Text that is still
 * streaming is rewritten so that what a viewer was sent never changes later (a delta is
 * only ever appended) and never holds the start of a folder's name: the end of the text
 * that might still become one is held back until the text goes on or ends.
 */

/** The folders to take out, and where the saved outputs of a session live. */
export interface PathScope {
  teamId: string;
  /** The session's folder: its workspace (or, made before workspaces, its project's directory). */
  directory: string;
  /** The project's own folder, which the workspace was made from: shown relative like the workspace. */
  project?: string | undefined;
  dataDir?: string | undefined;
  /** The folder every team's projects are registered under. */
  projectsRoot?: string | undefined;
}

/** A folder and what replaces it: `self` for the folder itself, `inside` before the name of something in it. */
interface Swap {
  dir: string;
  self: string;
  inside: string;
}

/** How far a text was rewritten: up to `index` of the original, as `out`. */
export interface Rewritten {
  index: number;
  out: string;
}

const NAME_CHAR = /[\w.-]/;
/** What makes a folder's name go on into a longer one: a name character, or dots then one (not a sentence's full stop). */
const LONGER_NAME = /^\.*[\w-]/;
/** Dots at the end of a text: a full stop, or the start of a longer name. */
const TRAILING_DOTS = /\.+$/;

/** The folders of a scope, the most specific first (the project may lie inside the data directory, its default place). */
export function swapsOf(scope: PathScope, sessionId: string): Swap[] {
  const swaps: Swap[] = [];
  const add = (dir: string | undefined, self: string, inside: string) => {
    if (dir !== undefined && dir.length > 1) swaps.push({ dir, self, inside });
  };
  add(scope.directory, ".", "");
  if (scope.project !== scope.directory) add(scope.project, ".", "");
  if (scope.dataDir) {
    add(outputDirectory(scope.dataDir, scope.teamId, sessionId), "tool-output", "tool-output/");
    // Saved outputs of the team's other sessions (a child's): by session, without the team.
    add(path.join(scope.dataDir, "tool-output", scope.teamId), "tool-output", "tool-output/");
    add(scope.dataDir, "<data directory>", "<data directory>/");
  }
  add(scope.projectsRoot, "<projects>", "<projects>/");
  return swaps.sort((x, y) => y.dir.length - x.dir.length);
}

/**
 * Where the end of `text` that may still become one of the folders starts (its length
 * when none): the longest end that is the start of a folder followed by a separator. Any
 * folder found before it is decided by what follows it in `text`.
 */
function heldBack(text: string, swaps: Swap[]): number {
  let start = text.length;
  const dots = TRAILING_DOTS.exec(text)?.[0].length ?? 0;
  for (const { dir } of swaps) {
    // `dir.` may end a sentence or go on into `dir.txt`.
    if (dots > 0 && text.endsWith(dir, text.length - dots)) start = Math.min(start, text.length - dots - dir.length);
    const whole = dir + path.sep;
    for (let k = Math.min(whole.length, text.length); k > text.length - start; k--) {
      if (text.endsWith(whole.slice(0, k))) {
        start = text.length - k;
        break;
      }
    }
  }
  return start;
}

/**
 * `text` with the folders of `swaps` replaced, from `from` (what an earlier call made of
 * its start, when only more text was appended since). A folder counts as a whole path
 * only (not the start of a longer name; a full stop after it is not one): `dir/name…`
 * becomes `inside` + `name…`, `dir` itself (or `dir/` before anything but a name) `self`. Unless `complete`, the end that
 * may still become a folder is left out (`index` says where it starts).
 */
export function rewrite(text: string, swaps: Swap[], complete: boolean, from?: Rewritten): Rewritten {
  const stop = complete ? text.length : heldBack(text, swaps);
  let index = from && from.index <= stop ? from.index : 0;
  let out = from && from.index <= stop ? from.out : "";
  while (index < stop) {
    let next = -1;
    for (const { dir } of swaps) {
      const at = text.indexOf(dir, index);
      if (at >= 0 && at < stop && (next < 0 || at < next)) next = at;
    }
    if (next < 0) {
      out += text.slice(index, stop);
      index = stop;
      break;
    }
    out += text.slice(index, next);
    index = next;
    const replaced = replaceAt(text, index, swaps);
    if (replaced) {
      out += replaced.with;
      index = replaced.end;
    } else {
      out += text[index];
      index += 1;
    }
  }
  return { index, out };
}

/** The folder of `swaps` that `text` holds as a whole path at `at` (the longest), and where what replaces it ends. */
function replaceAt(text: string, at: number, swaps: Swap[]): { with: string; end: number } | undefined {
  for (const { dir, self, inside } of swaps) {
    if (!text.startsWith(dir, at)) continue;
    const end = at + dir.length;
    const next = text[end];
    if (next !== undefined && LONGER_NAME.test(text.slice(end, end + 64))) continue;
    const child = next === path.sep && NAME_CHAR.test(text[end + 1] ?? "");
    return child ? { with: inside, end: end + 1 } : { with: self, end };
  }
  return undefined;
}

/** `text` with the server's folders taken out (a finished text: nothing is held back). */
export function relativeText(text: string, scope: PathScope, sessionId: string): string {
  return rewrite(text, swapsOf(scope, sessionId), true).out;
}

/** Every string inside `value` (objects and arrays followed) through `change`. */
export function relativeValue(value: unknown, change: (text: string) => string): unknown {
  if (typeof value === "string") return change(value);
  if (Array.isArray(value)) return value.map((item) => relativeValue(item, change));
  if (typeof value === "object" && value !== null) return relativeRecord(value as Record<string, unknown>, change);
  return value;
}

export function relativeRecord(record: Record<string, unknown>, change: (text: string) => string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, relativeValue(value, change)]));
}
