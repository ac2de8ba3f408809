import { promises as fs, type Stats } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runProcess } from "../sandbox/run";
import { SandboxUnavailableError } from "../sandbox/sandbox";
import { errorCode, IGNORED_DIRECTORIES, type WalkEntry } from "./files";
import { forbiddenReason, kindOf, NotAFileError, type ResolvedPath } from "./paths";
import { ToolError, type ToolContext } from "./tool";

/**
 * File I/O outside the project (after the rules allowed the folder): it never runs with
 * the server's rights. Each read, listing or write is a small program in the sandbox
 * (server/sandbox), which sees only the one file or folder it works on — bound read-only,
 * or read-write for a write — and runs as the sandbox's user. When no sandbox can run
 * here, outside I/O is refused (unless the operator turned the sandbox off: then the same
 * programs run unconfined, as every tool process does).
 */

/** Bytes an outside read returns at most. */
export const MAX_OUTSIDE_READ_BYTES = 16 * 1024 * 1024;
/** How long one outside operation may take. */
const OUTSIDE_TIMEOUT_MS = 15_000;
/** Output a listing may produce before it is cut. */
const MAX_LISTING_BYTES = 16 * 1024 * 1024;

/** Exit codes of the programs below, for what they found. */
const MISSING = 66;
const DIRECTORY = 67;
const NOT_REGULAR = 68;
const NOT_DIRECTORY = 69;

interface Ran {
  exit: number | null;
  stdout: string;
  stderr: string;
  /** The output budget or the time ran out. */
  cut: boolean;
}

/** A bind must never hold a place no tool may reach (the folder around the data directory, say). */
function checkBind(ctx: ToolContext, real: string, asGiven: string): void {
  const reason = forbiddenReason(ctx.boundary, real);
  if (reason) throw new ToolError(`Access denied: ${asGiven} is outside this project, in a place no tool may reach (${reason}).`);
}

async function run(ctx: ToolContext, argv: string[], binds: { readable?: string[]; writable?: string[] }, maxOutputBytes: number): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  let result;
  try {
    result = await runProcess(
      ctx.sandbox,
      { argv, project: ctx.directory, ...binds },
      {
        timeoutMs: OUTSIDE_TIMEOUT_MS,
        signal: ctx.abort,
        graceMs: 200,
        maxOutputBytes,
        onStdout: (text) => {
          stdout += text;
        },
        onStderr: (text) => {
          if (stderr.length < 10_000) stderr += text;
        },
      },
    );
  } catch (error) {
    if (error instanceof SandboxUnavailableError) {
      throw new ToolError(`Files outside the project are only read or written inside the sandbox, and it cannot run on this server: ${error.message}`);
    }
    throw error;
  }
  if (result.ended === "abort") throw new DOMException("The tool was aborted", "AbortError");
  return { exit: result.exit, stdout, stderr, cut: result.ended !== "exit" };
}

/** The first line of what a program said on stderr, for an error message. */
function said(ran: Ran): string {
  return ran.stderr.trim().split("\n")[0] ?? `exit ${ran.exit}`;
}

/** The type of an existing outside path as the server sees it (metadata only: nothing is opened), or undefined when missing. */
async function statOf(real: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(real);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

// Checks made again inside the sandbox (the path may have changed since), then a read
// that never blocks on a FIFO (nonblock) and never follows a link at the end (nofollow).
const READ_SCRIPT = [
  "set -o pipefail",
  `[ -e "$1" ] || exit ${MISSING}`,
  `[ -d "$1" ] && exit ${DIRECTORY}`,
  `[ -f "$1" ] && [ ! -L "$1" ] || exit ${NOT_REGULAR}`,
  'dd if="$1" iflag=nofollow,nonblock,count_bytes,fullblock bs=65536 count="$2" status=none | base64 -w 0',
].join("\n");

export type OutsideRead = { kind: "file"; content: Buffer; complete: boolean } | { kind: "missing" };

/** Read (at most `maxBytes` of) an outside file in the sandbox. Directories and anything but a regular file are refused. */
export async function readOutside(ctx: ToolContext, target: ResolvedPath, maxBytes = MAX_OUTSIDE_READ_BYTES): Promise<OutsideRead> {
  const stat = await statOf(target.real);
  if (!stat) return { kind: "missing" };
  if (!stat.isFile()) throw new NotAFileError(target.relative, stat.isDirectory(), kindOf(stat));
  checkBind(ctx, target.real, target.relative);
  const ran = await run(ctx, ["/bin/bash", "-c", READ_SCRIPT, "parley-read", target.real, String(maxBytes + 1)], { readable: [target.real] }, Math.ceil(((maxBytes + 1) * 4) / 3) + 1024);
  if (ran.exit === MISSING) return { kind: "missing" };
  if (ran.exit === DIRECTORY) throw new NotAFileError(target.relative, true);
  if (ran.exit === NOT_REGULAR) throw new NotAFileError(target.relative, false);
  if (ran.cut) throw new ToolError(`Reading ${target.relative} took too long and was stopped.`);
  if (ran.exit !== 0) throw new ToolError(`${target.relative} cannot be read: ${said(ran)}`);
  const content = Buffer.from(ran.stdout, "base64");
  return content.length > maxBytes ? { kind: "file", content: content.subarray(0, maxBytes), complete: false } : { kind: "file", content, complete: true };
}

const WRITE_SCRIPT = [
  `[ -e "$2" ] && { [ -f "$2" ] && [ ! -L "$2" ] || exit ${NOT_REGULAR}; }`,
  `[ -d "$(dirname -- "$2")" ] || exit ${MISSING}`,
  'cat -- "$1" > "$2"',
].join("\n");

/**
 * Replace (or create) an outside file's content in the sandbox: only the file itself (or,
 * for a new file, its folder) is bound read-write. The content goes through a private
 * temporary file bound read-only. The folder must exist.
 */
export async function writeOutside(ctx: ToolContext, target: ResolvedPath, content: string): Promise<void> {
  const stat = await statOf(target.real);
  if (stat && !stat.isFile()) throw new NotAFileError(target.relative, stat.isDirectory(), kindOf(stat));
  const folder = path.dirname(target.real);
  if (!stat) {
    const parent = await statOf(folder);
    if (!parent?.isDirectory()) throw new ToolError(`The folder ${path.dirname(target.relative)} does not exist: a file outside the project can only be written into an existing folder.`);
  }
  const bound = stat ? target.real : folder;
  checkBind(ctx, bound, stat ? target.relative : path.dirname(target.relative));
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), "parley-write-"));
  try {
    const source = path.join(scratch, "content");
    await fs.writeFile(source, content, { encoding: "utf8", flag: "wx", mode: 0o600 });
    // The sandbox's user reads it (when it is not the server's own).
    const owner = ctx.sandbox.owner;
    if (owner) {
      await fs.chown(scratch, owner.uid, owner.gid);
      await fs.chown(source, owner.uid, owner.gid);
    }
    const ran = await run(ctx, ["/bin/bash", "-c", WRITE_SCRIPT, "parley-write", source, target.real], { readable: [scratch], writable: [bound] }, 64 * 1024);
    if (ran.exit === NOT_REGULAR) throw new NotAFileError(target.relative, false);
    if (ran.exit === MISSING) throw new ToolError(`The folder ${path.dirname(target.relative)} does not exist.`);
    if (ran.cut) throw new ToolError(`Writing ${target.relative} took too long and was stopped.`);
    if (ran.exit !== 0) throw new ToolError(`${target.relative} cannot be written: ${said(ran)}`);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

export interface OutsideEntry extends WalkEntry {
  /** Modification time (ms), of the entry itself (a symlink is not followed). */
  mtime: number;
}

export interface OutsideListing {
  entries: OutsideEntry[];
  /** The listing was cut (too much output or time): deeper entries may be missing. */
  cut: boolean;
}

const LIST_SCRIPT = [
  `[ -e "$1" ] || exit ${MISSING}`,
  `[ -d "$1" ] && [ ! -L "$1" ] || exit ${NOT_DIRECTORY}`,
  'dir=$1; depth=$2; shift 2',
  'exec find "$dir" -mindepth 1 ${depth:+-maxdepth "$depth"} \\( -type d \\( "$@" \\) -prune \\) -o -printf "%y %T@ %d %P\\0"',
].join("\n");

const KINDS: Record<string, WalkEntry["kind"]> = { f: "file", d: "directory", l: "symlink" };

/**
 * The entries below an outside folder, found in the sandbox (`find`, links never
 * followed, dependency/VCS folders skipped), breadth first and by name within a folder as
 * `walk` yields them. `maxDepth` bounds how deep it looks.
 */
export async function listOutside(ctx: ToolContext, target: ResolvedPath, options: { maxDepth?: number } = {}): Promise<OutsideListing> {
  const stat = await statOf(target.real);
  if (!stat) throw new ToolError(`Directory not found: ${target.relative}`);
  if (!stat.isDirectory()) throw new ToolError(`${target.relative} is not a directory.`);
  checkBind(ctx, target.real, target.relative);
  const prune = [...IGNORED_DIRECTORIES].flatMap((name, i) => (i === 0 ? ["-name", name] : ["-o", "-name", name]));
  const argv = ["/bin/bash", "-c", LIST_SCRIPT, "parley-list", target.real, options.maxDepth === undefined ? "" : String(options.maxDepth), ...prune];
  const ran = await run(ctx, argv, { readable: [target.real] }, MAX_LISTING_BYTES);
  if (ran.exit === MISSING) throw new ToolError(`Directory not found: ${target.relative}`);
  if (ran.exit === NOT_DIRECTORY) throw new ToolError(`${target.relative} is not a directory.`);
  // find exits 1 when some folder could not be read: what it found is still the answer.
  if (ran.exit !== 0 && ran.exit !== 1 && !ran.cut) throw new ToolError(`${target.relative} cannot be listed: ${said(ran)}`);
  const records = ran.stdout.split("\0");
  // A record cut by the output budget is left out.
  if (ran.cut) records.pop();
  const entries: OutsideEntry[] = [];
  for (const record of records) {
    const m = /^(\S) (\S+) (\d+) ([\s\S]+)$/.exec(record);
    if (!m?.[1] || !m[2] || !m[3] || !m[4]) continue;
    const rel = m[4];
    entries.push({
      path: path.join(target.real, rel),
      rel,
      name: path.basename(rel),
      depth: Number(m[3]),
      kind: KINDS[m[1]] ?? "other",
      mtime: Math.round(Number(m[2]) * 1000),
    });
  }
  entries.sort((a, b) => a.depth - b.depth || compareParts(a.rel.split("/"), b.rel.split("/")));
  return { entries, cut: ran.cut };
}

function compareParts(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? "";
    const y = b[i] ?? "";
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
