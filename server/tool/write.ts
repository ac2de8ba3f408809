import { constants as fsConstants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { unifiedDiff } from "./diff";
import { errorCode } from "./files";
import type { SandboxOwner } from "../sandbox/owner";
import { readOutside, writeOutside } from "./outside";
import { createChecked, makeDirectories, openChecked, type ResolvedPath, resolvePath } from "./paths";
import { define, ToolError, type ToolContext } from "./tool";

const parameters = z.object({
  filePath: z.string().min(1).describe("The file to write: a path relative to the project directory, or absolute."),
  content: z.string().describe("The complete new content of the file."),
});

/** Files outside the project larger than this are not edited (their content goes through the sandbox). */
const MAX_OUTSIDE_EDIT_BYTES = 10 * 1024 * 1024;

/**
 * The current content of a file, or undefined when it does not exist. Outside the project
 * it is read in the sandbox; inside, through a checked, non-blocking open (a FIFO, socket
 * or device is refused).
 */
export async function readExisting(ctx: ToolContext, target: ResolvedPath): Promise<string | undefined> {
  if (target.external) {
    const found = await readOutside(ctx, target, MAX_OUTSIDE_EDIT_BYTES);
    if (found.kind === "missing") return undefined;
    if (!found.complete) throw new ToolError(`${target.relative} is larger than ${MAX_OUTSIDE_EDIT_BYTES / 1024 / 1024} MB: a file outside the project that large cannot be changed with this tool.`);
    return found.content.toString("utf8");
  }
  let handle: FileHandle;
  try {
    handle = await openChecked(target, fsConstants.O_RDONLY);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  try {
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/** Give an open file or folder to the sandbox's user (nothing when it is the server's own): by handle, so no swapped path can redirect it. */
async function adopt(owner: SandboxOwner | undefined, handle: FileHandle): Promise<void> {
  if (owner) await handle.chown(owner.uid, owner.gid);
}

/**
 * Replace a file's content (creating it and its folders). Outside the project this runs in
 * the sandbox (outside.ts). Inside, no destructive step comes before the checks: an
 * existing file is opened without O_TRUNC, checked (a regular file, where it should be),
 * then truncated; a new one is created with O_EXCL and checked; every folder made on the
 * way is checked too. What is written belongs to the sandbox's user.
 */
export async function writeChecked(ctx: ToolContext, target: ResolvedPath, content: string): Promise<void> {
  if (target.saved) throw new ToolError(`${target.relative} is a saved tool output: saved outputs can be read, not changed.`);
  if (target.external) return writeOutside(ctx, target, content);
  const owner = ctx.sandbox.owner;
  const root = await fs.realpath(ctx.directory);
  await makeDirectories(root, path.dirname(target.real), (handle) => adopt(owner, handle));
  let handle: FileHandle;
  try {
    handle = await openChecked(target, fsConstants.O_WRONLY);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    handle = await createChecked(target);
  }
  try {
    await handle.truncate(0);
    await handle.writeFile(content, "utf8");
    await adopt(owner, handle);
  } finally {
    await handle.close();
  }
}

export const write = define({
  id: "write",
  description: [
    "Create a file, or overwrite an existing one with new content. Parent directories are created.",
    "- filePath may be relative to the project directory or absolute.",
    "- Prefer the edit tool to change part of an existing file; read a file before overwriting it.",
  ].join("\n"),
  parameters,
  async execute(input, ctx) {
    const target = await resolvePath(ctx, input.filePath, { access: "write" });
    const before = await readExisting(ctx, target);
    const existed = before !== undefined;
    const { diff, additions, deletions } = unifiedDiff(target.relative, before ?? "", input.content);
    await ctx.ask({ permission: "edit", patterns: [target.relative], metadata: { filepath: target.absolute, diff } });
    // What the project's folder grows by (a file outside it is not the project's).
    const growth = target.external ? 0 : Buffer.byteLength(input.content) - Buffer.byteLength(before ?? "");
    await ctx.quota?.assertRoom(growth, `Cannot write ${target.relative}`);
    await writeChecked(ctx, target, input.content);
    ctx.quota?.changed(growth);
    return {
      title: target.relative,
      output: `${existed ? "Overwrote" : "Created"} ${target.relative} (${additions} lines added, ${deletions} removed).`,
      metadata: { filePath: target.relative, existed, ...shownDiff(ctx, target, diff), additions, deletions },
    };
  },
});

/**
 * The diff kept in the tool's result (stored, and shown on share links): left out for a
 * file the rules would not let the agent read freely, such as `.env`, so its secrets stay
 * where they are. The person approving the edit still saw it in the question.
 */
export function shownDiff(ctx: ToolContext, target: ResolvedPath, diff: string): { diff: string } | { diffHidden: true } {
  return ctx.check("read", target.relative) === "allow" ? { diff } : { diffHidden: true };
}
