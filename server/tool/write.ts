import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { unifiedDiff } from "./diff";
import { errorCode } from "./files";
import { resolvePath } from "./paths";
import { define, ToolError } from "./tool";

const parameters = z.object({
  filePath: z.string().min(1).describe("The file to write: a path relative to the project directory, or absolute."),
  content: z.string().describe("The complete new content of the file."),
});

/** The current content of a file, or undefined when it does not exist. */
export async function readExisting(absolute: string, display: string): Promise<string | undefined> {
  try {
    const stat = await fs.stat(absolute);
    if (stat.isDirectory()) throw new ToolError(`${display} is a directory, not a file.`);
    return await fs.readFile(absolute, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
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
    const before = await readExisting(target.absolute, target.relative);
    const existed = before !== undefined;
    const { diff, additions, deletions } = unifiedDiff(target.relative, before ?? "", input.content);
    await ctx.ask({ permission: "edit", patterns: [target.relative], metadata: { filepath: target.absolute, diff } });
    await fs.mkdir(path.dirname(target.absolute), { recursive: true });
    await fs.writeFile(target.absolute, input.content, "utf8");
    return {
      title: target.relative,
      output: `${existed ? "Overwrote" : "Created"} ${target.relative} (${additions} lines added, ${deletions} removed).`,
      metadata: { filePath: target.relative, existed, diff, additions, deletions },
    };
  },
});
