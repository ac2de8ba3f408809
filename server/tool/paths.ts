import { constants as fsConstants, promises as fs, realpathSync, type Stats } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { DEFAULTS } from "../permission/evaluate";
import { decide, type Layer } from "../permission/layers";
import { isInside } from "../inside";
import { errorCode } from "./files";
import { type Boundary, ToolError, type ToolContext } from "./tool";
import { logger } from "../log";

const log = logger("tools");

/**
 * Path confinement: every path a tool receives is resolved against the project directory,
 * symlinks followed. A path that leaves the project — through `..`, an absolute path, or
 * a symlink anywhere along the way — is
 * - allowed without a question, read-only, inside the session's own saved outputs and
 *   those of the sessions it runs for (a subagent reads its parent's);
 * - refused outright inside a place no tool may reach — the host's `/proc`, `/sys` and
 *   `/dev`, the server's install directory, the data directory, the projects root,
 *   another team's project — and for any folder that holds one of them (`/`, the parent
 *   of the data directory): a search or listing there would walk into it;
 * - refused outright unless the server configuration or an owner's or admin's team or
 *   project policy allows `external_directory` for its directory (the built-in default
 *   denies it; a member's session rules or "Always" answers cannot loosen that);
 * - otherwise allowed after the `external_directory` question, asked BEFORE the tool
 *   touches anything outside. Its "always" covers the one directory the path is in.
 * What a tool then does outside the project runs in the sandbox (outside.ts), never with
 * the server's own rights.
 */


export interface ResolvedPath {
  /** Absolute path as given (symlinks not followed): what the tool opens. */
  absolute: string;
  /** Where it really lives (symlinks followed as far as they exist). */
  real: string;
  /** Path relative to the project for display and permission patterns; absolute when outside. */
  relative: string;
  /** Whether it lies outside the project (permission was granted to get here). */
  external: boolean;
  /** Whether it is a saved tool output (read by the server, never written). */
  saved?: boolean;
}

const MAX_SYMLINK_HOPS = 40;

/** The policy when a boundary names none: the built-in defaults. */
const BUILT_IN: Layer[] = [{ name: "defaults", rules: DEFAULTS, final: false }];


function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES") return path.resolve(p);
    throw error;
  }
}

/** The directory the app's code runs from: the parent of the node_modules its packages are loaded from. */
function codeDirectory(): string | undefined {
  let resolved: string;
  try {
    resolved = createRequire(import.meta.url).resolve(/* turbopackIgnore: true */ "next/package.json");
  } catch (error) {
    // No resolvable package: the working directory (also refused) is the install directory.
    log.error("the app's code directory could not be found", error);
    return undefined;
  }
  let dir = realOrSelf(path.dirname(resolved));
  while (path.basename(dir) !== "node_modules" && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.basename(dir) === "node_modules" ? path.dirname(dir) : undefined;
}

let hostPlaces: string[] | undefined;

/**
 * Places of the host no tool reaches, whatever any rule says (real paths, found once): the
 * kernel's views (`/proc`, `/sys`), devices (`/dev`), and the server's own install and
 * working directories (its code, its configuration, its `.env`).
 */
export function hostForbidden(): string[] {
  if (hostPlaces) return hostPlaces;
  const places = ["/proc", "/sys", "/dev"];
  const cwd = realOrSelf(process.cwd());
  // A server started from `/` has no install directory there.
  if (cwd !== path.parse(cwd).root) places.push(cwd);
  const code = codeDirectory();
  if (code !== undefined && code !== path.parse(code).root) places.push(code);
  hostPlaces = [...new Set(places.map(realOrSelf))];
  return hostPlaces;
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
 * Resolve a tool's path argument against `ctx.directory`. A path outside the project is
 * refused outright (see the module comment) or asks `external_directory`; rejections from
 * `ctx.ask` propagate unchanged. `kind` says whether the tool expects a directory (the
 * request then names it rather than its parent); `access: "write"` refuses saved outputs.
 */
export async function resolvePath(
  ctx: ToolContext,
  input: string | undefined,
  options: { kind?: "file" | "directory"; access?: "read" | "write" } = {},
): Promise<ResolvedPath> {
  const root = path.resolve(ctx.directory);
  const absolute = path.resolve(root, input === undefined || input === "" ? "." : input);
  const realRoot = await projectRoot(root);
  const lexicallyInside = isInside(root, absolute);
  // Resolve symlinks only for paths that are lexically inside: an outside path is never
  // touched (not even lstat) before it is known to be allowed.
  const real = lexicallyInside ? await realLocation(absolute) : absolute;
  const inside = lexicallyInside && isInside(realRoot, real);
  if (inside) {
    return { absolute, real, relative: path.relative(root, absolute) || ".", external: false };
  }
  const asGiven = input ?? absolute;
  const savedOutputs = [ctx.outputDir, ...(ctx.boundary.savedOutputs ?? [])];
  // The directory asked for: the path itself when the tool wants a directory, else its parent.
  const dirOf = (p: string) => (options.kind === "directory" ? p : path.dirname(p));
  // Refused before anything outside is resolved: the place as written, then where it leads.
  if (!lexicallyInside && !savedOutputs.some((dir) => isInside(dir, absolute))) {
    refuseForbidden(ctx.boundary, asGiven, absolute);
    refuseByPolicy(ctx.boundary, asGiven, dirOf(absolute));
  }
  const outside = lexicallyInside ? real : await realLocation(absolute);
  if (savedOutputs.some((dir) => isInside(dir, outside))) {
    if (options.access === "write") throw new ToolError(`${asGiven} is a saved tool output: saved outputs can be read, not changed.`);
    return { absolute, real: outside, relative: absolute, external: true, saved: true };
  }
  refuseForbidden(ctx.boundary, asGiven, outside);
  const dir = dirOf(outside);
  refuseByPolicy(ctx.boundary, asGiven, dir);
  await ctx.ask({
    permission: "external_directory",
    patterns: [dir],
    // A wildcard character in the directory's name would make the stored rule cover more than it.
    always: /[*?]/.test(dir) ? [] : [dir],
    metadata: { filepath: absolute, ...(outside !== absolute ? { target: outside } : {}), directory: dir },
  });
  return { absolute, real: outside, relative: absolute, external: true };
}

/** Why a place outside the project is refused outright, or undefined when it is not. */
export function forbiddenReason(boundary: Boundary, real: string): string | undefined {
  const host = hostForbidden();
  if (host.some((dir) => isInside(dir, real))) return "a part of the server itself (its system views, devices or its own files)";
  if (host.some((dir) => isInside(real, dir))) return "a folder that holds a part of the server itself (its system views, devices or its own files)";
  const inTeamProject = boundary.teamProjects.some((dir) => isInside(dir, real));
  if (!inTeamProject && boundary.forbidden.some((dir) => isInside(dir, real))) return "Parley's data or another team's project";
  // A folder around a forbidden place: a listing or search there would walk into it.
  if (boundary.forbidden.some((dir) => isInside(real, dir))) {
    return "a folder that holds Parley's data or another team's project";
  }
  return undefined;
}

/** Refuse, without asking, a folder outside that neither the server configuration nor the team's or project's policy opens. */
function refuseByPolicy(boundary: Boundary, asGiven: string, dir: string): void {
  if (decide("external_directory", dir, boundary.policy ?? BUILT_IN).action !== "deny") return;
  throw new ToolError(
    `Access denied: ${asGiven} is outside this project. Tools reach a folder outside the project only where the server configuration or an owner's or admin's team or project policy allows "external_directory" for it, and no rule allows ${dir}.`,
  );
}

/** Refuse, without asking, what no tool may reach (see the module comment). */
function refuseForbidden(boundary: Boundary, asGiven: string, real: string): void {
  const reason = forbiddenReason(boundary, real);
  if (reason) throw new ToolError(`Access denied: ${asGiven} is outside this project, in a place no tool may reach (${reason}).`);
}

/** A path is a directory, or not a regular file at all (a FIFO, socket, device), where a file was wanted. */
export class NotAFileError extends ToolError {
  constructor(
    readonly relative: string,
    readonly directory: boolean,
    what = directory ? "a directory" : "not a regular file",
  ) {
    super(directory ? `${relative} is a directory, not a file.` : `${relative} is ${what}: only regular files can be read or written.`);
  }
}

/** What kind of file a stat describes, for messages. */
export function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a named pipe (FIFO)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  if (stat.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

/** Flags every open of a member's path carries: never through a symlink at the end, never blocking (FIFOs), never a terminal. */
const SAFE_OPEN = fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK | fsConstants.O_NOCTTY;

/** Where an open file really is (Linux: /proc/self/fd), or undefined where that cannot be told. */
async function openedAt(handle: fs.FileHandle): Promise<string | undefined> {
  try {
    return await fs.realpath(`/proc/self/fd/${handle.fd}`);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
    return undefined;
  }
}

/**
 * Open a resolved regular file and check that it is the one that was resolved. The open
 * never blocks (O_NONBLOCK: a FIFO cannot hold a thread) and never follows a symlink at the
 * end; then, on the handle, anything but a regular file (a directory, FIFO, socket, device)
 * is refused, and where the file really is is checked (Linux tells through /proc/self/fd):
 * a symlink swapped in between resolvePath and the open (say, by a command running at the
 * same time) cannot redirect a tool to another place. Nothing is changed before these
 * checks: open without O_TRUNC, and truncate the handle afterwards.
 */
export async function openChecked(target: ResolvedPath, flags: number, mode?: number): Promise<fs.FileHandle> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(target.real, flags | SAFE_OPEN, mode);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ELOOP") throw new ToolError(`${target.relative} changed while it was being opened (it is now a symbolic link); try again.`);
    if (code === "EISDIR") throw new NotAFileError(target.relative, true);
    if (code === "ENXIO") throw new NotAFileError(target.relative, false, "not a regular file (a named pipe, socket or device)");
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new NotAFileError(target.relative, stat.isDirectory(), kindOf(stat));
    const opened = await openedAt(handle);
    if (opened !== undefined && opened !== target.real) {
      throw new ToolError(`${target.relative} changed while it was being opened (it now leads to another place); try again.`);
    }
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/**
 * Create a new regular file (O_CREAT | O_EXCL: never an existing one, never through a
 * symlink) and check where it landed; a file that landed elsewhere (a folder on the way
 * was swapped for a link meanwhile) is removed again and the write refused.
 */
export async function createChecked(target: ResolvedPath, mode = 0o666): Promise<fs.FileHandle> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(target.real, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | SAFE_OPEN, mode);
  } catch (error) {
    const code = errorCode(error);
    if (code === "EEXIST" || code === "ELOOP") throw new ToolError(`${target.relative} changed while it was being written (it appeared meanwhile); try again.`);
    throw error;
  }
  const opened = await openedAt(handle).catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  if (opened !== undefined && opened !== target.real) {
    await handle.close();
    await fs.unlink(opened).catch((error: unknown) => {
      // Already gone: nothing to undo.
      if (errorCode(error) !== "ENOENT") throw error;
    });
    throw new ToolError(`${target.relative} changed while it was being written (a folder on its way now leads to another place); nothing was written.`);
  }
  return handle;
}

/**
 * Make the missing folders between `root` (the real project directory) and `dir`, one at
 * a time, each checked to be where it should be (not through a symlink swapped in) and
 * handed to `adopt` (the sandbox's user gets it) while still open.
 */
export async function makeDirectories(root: string, dir: string, adopt: (handle: fs.FileHandle) => Promise<void>): Promise<void> {
  if (!isInside(root, dir)) throw new ToolError(`${dir} is outside the project.`);
  const missing: string[] = [];
  for (let at = dir; at !== root; at = path.dirname(at)) {
    try {
      const stat = await fs.lstat(at);
      if (!stat.isDirectory()) throw new ToolError(`${path.relative(root, at)} is ${kindOf(stat)}, not a folder.`);
      break;
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
      missing.unshift(at);
    }
  }
  for (const folder of missing) {
    try {
      await fs.mkdir(folder);
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(folder, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | SAFE_OPEN);
    } catch (error) {
      const code = errorCode(error);
      if (code === "ELOOP" || code === "ENOTDIR") throw new ToolError(`${path.relative(root, folder)} changed while it was being made (it is not a folder); try again.`);
      throw error;
    }
    try {
      const opened = await openedAt(handle);
      if (opened !== undefined && opened !== folder) throw new ToolError(`${path.relative(root, folder)} changed while it was being made (it leads to another place); nothing was written.`);
      await adopt(handle);
    } finally {
      await handle.close();
    }
  }
}
