import { constants as fsConstants, promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "../errno";
import { openChecked, realLocation } from "../tool/paths";
import { isInside } from "../inside";
import { ToolError } from "../tool/tool";

/**
 * Markdown files a repository keeps for its agent (`.opencode/agent/*.md`,
 * `.opencode/command/**\/*.md`), read from a session's working tree as untrusted content:
 * through the same confined opens as the file tools (never through a symlink, never a
 * FIFO or device, only a place inside the tree), bounded in count, depth and size. A file
 * that cannot be read is left out and named in `problems`.
 */

/** A file larger than this is left out. */
export const MAX_FILE_BYTES = 64 * 1024;
/** At most this many files are read per folder. */
export const MAX_FILES = 200;
/** Folders below the named one that are walked (`dir/name` for nested commands). */
const MAX_DEPTH = 4;

export interface RepoFile {
  /** The name it gives: its path below the folder without `.md` (`review/deep`). */
  name: string;
  /** Its path relative to the working tree (`.opencode/command/review/deep.md`). */
  path: string;
  text: string;
}

export interface RepoFiles {
  files: RepoFile[];
  problems: string[];
}

/**
 * The `.md` files of folders of the working tree `root` (relative paths like
 * `.opencode/agent`), in name order; with `nested`, subfolders too. A later folder's file
 * of the same name replaces an earlier one's.
 */
export async function readMarkdown(root: string, folders: readonly string[], nested: boolean): Promise<RepoFiles> {
  const out = new Map<string, RepoFile>();
  const problems: string[] = [];
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch (error) {
    // A working tree not made yet (or removed) has no files for its agent.
    if (errorCode(error) === "ENOENT") return { files: [], problems };
    throw error;
  }
  for (const folder of folders) {
    const found: RepoFile[] = [];
    await walk(realRoot, folder, "", nested ? MAX_DEPTH : 0, found, problems);
    for (const file of found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) out.set(file.name, file);
  }
  return { files: [...out.values()], problems };
}

async function walk(root: string, folder: string, below: string, depth: number, found: RepoFile[], problems: string[]): Promise<void> {
  const relativeDir = path.posix.join(folder, below);
  const absoluteDir = path.join(root, relativeDir);
  // Every step of the way must be a real folder inside the tree: a symlinked `.opencode` or subfolder is not followed.
  let entries: import("node:fs").Dirent[];
  try {
    const real = await realLocation(absoluteDir);
    if (real !== absoluteDir || !isInside(root, real)) {
      problems.push(`${relativeDir}: a symbolic link, not read`);
      return;
    }
    entries = await fs.readdir(absoluteDir, { withFileTypes: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return;
    throw error;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (found.length >= MAX_FILES) {
      problems.push(`${relativeDir}: more than ${MAX_FILES} files, the rest not read`);
      return;
    }
    const rel = below ? `${below}/${entry.name}` : entry.name;
    const shown = path.posix.join(folder, rel);
    if (entry.isDirectory()) {
      if (depth > 0) await walk(root, folder, rel, depth - 1, found, problems);
      continue;
    }
    if (!entry.name.endsWith(".md")) continue;
    if (!entry.isFile()) {
      problems.push(`${shown}: not a regular file, not read`);
      continue;
    }
    const text = await readOne(root, shown, problems);
    if (text !== undefined) found.push({ name: rel.slice(0, -".md".length), path: shown, text });
  }
}

async function readOne(root: string, shown: string, problems: string[]): Promise<string | undefined> {
  const absolute = path.join(root, shown);
  let handle: import("node:fs").promises.FileHandle;
  try {
    handle = await openChecked({ absolute, real: absolute, relative: shown, external: false }, fsConstants.O_RDONLY);
  } catch (error) {
    if (error instanceof ToolError || errorCode(error) === "ENOENT" || errorCode(error) === "ELOOP") {
      problems.push(`${shown}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (stat.size > MAX_FILE_BYTES) {
      problems.push(`${shown}: ${Math.ceil(stat.size / 1024)} KB, larger than ${MAX_FILE_BYTES / 1024} KB, not read`);
      return undefined;
    }
    const buffer = Buffer.alloc(stat.size);
    let length = 0;
    while (length < stat.size) {
      const { bytesRead } = await handle.read(buffer, length, stat.size - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    const text = buffer.subarray(0, length).toString("utf8");
    if (text.includes("\u0000")) {
      problems.push(`${shown}: not a text file, not read`);
      return undefined;
    }
    return text;
  } finally {
    await handle.close();
  }
}
