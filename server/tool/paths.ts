import { constants as fsConstants, promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "./files";
import { ToolError, type ToolContext } from "./tool";

/**
 * Path confinement: every path a tool receives is resolved against the project directory,
 * symlinks followed. A path that leaves the project — through `..`, an absolute path, or
 * a symlink anywhere along the way — is
 * - allowed without a question inside the session's own saved outputs;
 * - refused outright inside another team's project, the data directory or the projects
 *   root (they hold the database, every team's saved outputs and other teams' folders);
 * - otherwise allowed only after the `external_directory` question, asked BEFORE the tool
 *   touches anything outside. Its "always" covers the one directory the path is in (not
 *   the subtree below it).
 */

export interface Boundary {
  /** Real paths no tool may reach (the data directory, the projects root, other teams' projects). */
  forbidden: string[];
  /** Real paths of this team's other projects: reachable after the question, although they lie in the projects root. */
  teamProjects: string[];
}

export interface ResolvedPath {
  /** Absolute path as given (symlinks not followed): what the tool opens. */
  absolute: string;
  /** Where it really lives (symlinks followed as far as they exist). */
  real: string;
  /** Path relative to the project for display and permission patterns; absolute when outside. */
  relative: string;
  /** Whether it lies outside the project (permission was granted to get here). */
  external: boolean;
}

const MAX_SYMLINK_HOPS = 40;

/** Whether `child` is `parent` or lies below it (both absolute and normalized). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!path.isAbsolute(rel) && !isDotDotSegment(rel));
}

function isDotDotSegment(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${path.sep}`);
}

/**
 * The real location of `target`, following symlinks even when the final file does not
 * exist yet: the deepest existing ancestor is resolved with realpath, a dangling symlink is
 * followed by hand (so writing through it cannot land outside unnoticed), and the missing
 * remainder is appended.
 */
export async function realLocation(target: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw new ToolError(`Too many levels of symbolic links: ${target}`);
  try {
    return await fs.realpath(target);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  let stat: Awaited<ReturnType<typeof fs.lstat>> | undefined;
  try {
    stat = await fs.lstat(target);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  if (stat?.isSymbolicLink()) {
    // A dangling symlink: follow it by hand.
    const link = await fs.readlink(target);
    return realLocation(path.resolve(path.dirname(target), link), hops + 1);
  }
  return path.join(await realLocation(parent, hops + 1), path.basename(target));
}

async function projectRoot(directory: string): Promise<string> {
  try {
    return await fs.realpath(directory);
  } catch (error) {
    throw new ToolError(`The project directory ${directory} is not accessible: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Resolve a tool's path argument against `ctx.directory`, asking `external_directory`
 * when it escapes the project. Rejections from `ctx.ask` propagate unchanged. `kind` says
 * whether the tool expects a directory (the request then names it rather than its parent).
 */
export async function resolvePath(
  ctx: ToolContext,
  input: string | undefined,
  options: { kind?: "file" | "directory" } = {},
): Promise<ResolvedPath> {
  const root = path.resolve(ctx.directory);
  const absolute = path.resolve(root, input === undefined || input === "" ? "." : input);
  const realRoot = await projectRoot(root);
  const lexicallyInside = isInside(root, absolute);
  // Resolve symlinks only for paths that are lexically inside: an outside path is never
  // touched (not even lstat) before permission is granted.
  const real = lexicallyInside ? await realLocation(absolute) : absolute;
  const inside = lexicallyInside && isInside(realRoot, real);
  if (inside) {
    return { absolute, real, relative: path.relative(root, absolute) || ".", external: false };
  }
  const outside = lexicallyInside ? real : await realLocation(absolute);
  if (isInside(ctx.outputDir, outside)) return { absolute, real: outside, relative: absolute, external: true };
  refuseForbidden(ctx.boundary, input ?? absolute, outside);
  // The directory asked for: the path itself when the tool wants a directory, else its parent.
  const dir = options.kind === "directory" ? outside : path.dirname(outside);
  await ctx.ask({
    permission: "external_directory",
    patterns: [dir],
    // A wildcard character in the directory's name would make the stored rule cover more than it.
    always: /[*?]/.test(dir) ? [] : [dir],
    metadata: { filepath: absolute, ...(outside !== absolute ? { target: outside } : {}), directory: dir },
  });
  return { absolute, real: outside, relative: absolute, external: true };
}

/** Refuse, without asking, a path inside what no tool may reach (see the module comment). */
function refuseForbidden(boundary: Boundary, asGiven: string, real: string): void {
  if (boundary.teamProjects.some((dir) => isInside(dir, real))) return;
  if (boundary.forbidden.some((dir) => isInside(dir, real))) {
    throw new ToolError(`Access denied: ${asGiven} is outside this project, in a place no tool may reach (Parley's data or another team's project).`);
  }
}

/**
 * Open a resolved path and check that the opened file is the one that was resolved: a
 * symlink swapped in between resolvePath and the open (say, by a command running at the
 * same time) cannot redirect a tool to another place. Linux tells where an open file
 * really is through /proc/self/fd; elsewhere the check is skipped.
 */
export async function openChecked(target: ResolvedPath, flags: number, mode?: number): Promise<fs.FileHandle> {
  // The resolved location (no symlink left in it), and never through a symlink at the end.
  const handle = await fs.open(target.real, flags | fsConstants.O_NOFOLLOW | fsConstants.O_NOCTTY, mode);
  let opened: string | undefined;
  try {
    opened = await fs.realpath(`/proc/self/fd/${handle.fd}`);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      await handle.close();
      throw error;
    }
  }
  if (opened !== undefined && opened !== target.real) {
    await handle.close();
    throw new ToolError(`${target.relative} changed while it was being opened (it now leads to another place); try again.`);
  }
  return handle;
}
