import { constants as fsConstants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { unifiedDiff } from "./diff";
import { errorCode } from "./files";
import { openChecked, type ResolvedPath, resolvePath } from "./paths";
import { define, ToolError, type ToolContext } from "./tool";

const parameters = z.object({
  filePath: z.string().min(1).describe("The file to write: a path relative to the project directory, or absolute."),
  content: z.string().describe("The complete new content of the file."),
});

/** The current content of a file, or undefined when it does not exist. */
export async function readExisting(target: ResolvedPath): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    const stat = await fs.stat(target.real);
    if (stat.isDirectory()) throw new ToolError(`${target.relative} is a directory, not a file.`);
    handle = await openChecked(target, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw new ToolError(`${target.relative} is not a regular file.`);
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/** Replace a file's content (creating it and its folders), checking where the opened file really is. */
export async function writeChecked(target: ResolvedPath, content: string): Promise<void> {
  await fs.mkdir(path.dirname(target.real), { recursive: true });
  const handle = await openChecked(target, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_NONBLOCK, 0o666);
  try {
    if (!(await handle.stat()).isFile()) throw new ToolError(`${target.relative} is not a regular file.`);
    await handle.truncate(0);
    await handle.writeFile(content, "utf8");
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
    const target = await resolvePath(ctx, input.filePath);
    const before = await readExisting(target);
    const existed = before !== undefined;
    const { diff, additions, deletions } = unifiedDiff(target.relative, before ?? "", input.content);
    await ctx.ask({ permission: "edit", patterns: [target.relative], metadata: { filepath: target.absolute, diff } });
    // What the project's folder grows by (a file outside it is not the project's).
    const growth = target.external ? 0 : Buffer.byteLength(input.content) - Buffer.byteLength(before ?? "");
    await ctx.quota?.assertRoom(growth, `Cannot write ${target.relative}`);
    await writeChecked(target, input.content);
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
