import { constants as fsConstants, promises as fs } from "node:fs";
import path from "node:path";
import { errorCode, looksBinary } from "../tool/files";
import { openChecked, realLocation } from "../tool/paths";
import { isInside } from "../inside";
import { ToolError } from "../tool/tool";

/**
 * Reading a rule or instruction file of a workspace as the file tools read the project:
 * only a path that stays inside the workspace once every symlink is followed, opened
 * without following a symlink at the end and without blocking (a FIFO is refused at
 * once, never waited on), checked on the handle to be a regular file where it was
 * resolved, and never more than `maxBytes` of it.
 */

export type RuleRead =
  | { kind: "read"; text: string; /** Its size on disk. */ size: number; cut: boolean }
  | { kind: "missing" }
  | { kind: "refused"; reason: string };

/** Whether something (a file, a link, a FIFO…) has this name: the first name found wins, as OpenCode's `exists`. */
export async function present(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch (error) {
    const code = errorCode(error);
    // A folder the server may not search (made by the sandbox's user) holds nothing it could read.
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES") return false;
    throw error;
  }
}

/**
 * Read `file` (absolute, lexically inside `root`) confined to `root`, at most `maxBytes`
 * of it (cut on a character boundary). `relative` names it in messages.
 */
export async function readConfined(root: string, file: string, relative: string, maxBytes: number): Promise<RuleRead> {
  if (!isInside(root, file)) return { kind: "refused", reason: "it is outside the project" };
  let realRoot: string;
  let real: string;
  try {
    realRoot = await fs.realpath(root);
    real = await realLocation(file);
  } catch (error) {
    if (error instanceof ToolError) return { kind: "refused", reason: error.message };
    throw error;
  }
  if (!isInside(realRoot, real)) return { kind: "refused", reason: "it leads outside the project (a symbolic link)" };
  let handle: fs.FileHandle;
  try {
    handle = await openChecked({ absolute: file, real, relative, external: false }, fsConstants.O_RDONLY);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    if (error instanceof ToolError) return { kind: "refused", reason: error.message };
    if (code === "EACCES" || code === "EPERM") return { kind: "refused", reason: `${relative} cannot be read (permission denied)` };
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const cut = filled > maxBytes;
    const kept = buffer.subarray(0, Math.min(filled, maxBytes));
    if (looksBinary(kept.subarray(0, 4096))) return { kind: "refused", reason: `${relative} is a binary file` };
    return { kind: "read", text: cutText(kept, cut), size: Math.max(size, filled), cut };
  } finally {
    await handle.close();
  }
}

/** Bytes as text; when cut, a character split by the cut is dropped. */
export function cutText(bytes: Buffer, cut: boolean): string {
  const text = bytes.toString("utf8");
  return cut ? text.replace(/\uFFFD+$/, "") : text;
}

/** A path relative to the workspace as labels show it (`/`-separated). */
export function labelOf(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join("/");
}
