import { constants as fsConstants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { cutLine, errorCode, hasBinaryExtension, isBinaryHandle, looksBinary } from "./files";
import { MAX_OUTSIDE_READ_BYTES, readOutside } from "./outside";
import { NotAFileError, openChecked, type ResolvedPath, resolvePath } from "./paths";
import { define, ToolError, type ToolContext, type ToolResult } from "./tool";

export const DEFAULT_READ_LIMIT = 2000;
export const MAX_LINE_LENGTH = 2000;
/** Bytes of numbered content one read returns at most (the rest via `offset`). */
export const MAX_READ_BYTES = 50 * 1024;

const parameters = z.object({
  filePath: z.string().min(1).describe("The file to read: a path relative to the project directory, or absolute."),
  offset: z.number().int().min(1).optional().describe("The line number to start reading from (1-based). Use it for large files."),
  limit: z.number().int().min(1).optional().describe(`The number of lines to read (default ${DEFAULT_READ_LIMIT}).`),
});

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/** Names in the missing file's directory that look like what was meant. */
export async function similarNames(file: string, max = 3): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(path.dirname(file));
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES") return [];
    throw error;
  }
  const wanted = path.basename(file).toLowerCase();
  const stem = wanted.replace(/\.[^.]*$/, "");
  return names
    .map((name) => {
      const lower = name.toLowerCase();
      const distance = levenshtein(lower, wanted);
      const related = lower.includes(wanted) || wanted.includes(lower) || (stem.length >= 2 && lower.startsWith(stem));
      return { name, score: related ? Math.min(distance, 1) : distance };
    })
    .filter((c) => c.score <= Math.max(2, Math.floor(wanted.length / 4)))
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((c) => path.join(path.dirname(file), c.name));
}

export const read = define({
  id: "read",
  description: [
    "Read a text file of the project, with line numbers.",
    "- filePath may be relative to the project directory or absolute.",
    `- By default up to ${DEFAULT_READ_LIMIT} lines from the start are returned; use offset (1-based line number) and limit for large files.`,
    `- Lines longer than ${MAX_LINE_LENGTH} characters are cut.`,
    "- Each line is shown as `00001| text`; the prefix is not part of the file (leave it out when editing).",
    "- Directories and binary files cannot be read: use the list tool for directories.",
  ].join("\n"),
  parameters,
  async execute(input, ctx) {
    try {
      return await readFile(input, ctx);
    } catch (error) {
      if (error instanceof NotAFileError && error.directory) throw new ToolError(`${error.relative} is a directory, not a file. Use the list tool to see its contents.`);
      throw error;
    }
  },
});

/** Read a file for the tool: inside the project through a checked open, outside in the sandbox. */
async function readFile(input: z.output<typeof parameters>, ctx: ToolContext): Promise<ToolResult> {
  const target = await resolvePath(ctx, input.filePath);
  await ctx.ask({ permission: "read", patterns: [target.relative], metadata: { filepath: target.absolute } });
  const offset = input.offset ?? 1;
  const limit = input.limit ?? DEFAULT_READ_LIMIT;
  if (target.external && !target.saved) return readOutsideFile(ctx, target, offset, limit);

  let handle: FileHandle;
  try {
    handle = await openChecked(target, fsConstants.O_RDONLY);
  } catch (error) {
    if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") throw error;
    throw await notFound(ctx, target);
  }
  let result: ToolResult;
  try {
    if (await isBinaryHandle(handle, target.absolute)) throw new ToolError(`Cannot read binary file: ${target.relative}`);
    const stream = handle.createReadStream({ encoding: "utf8", start: 0, autoClose: false });
    const reader = createInterface({ input: stream, crlfDelay: Infinity });
    try {
      result = await numbered(reader, target, offset, limit);
    } finally {
      reader.close();
      stream.destroy();
    }
  } finally {
    await handle.close();
  }
  return target.saved ? result : withNearbyRules(ctx, target, result);
}

/**
 * A project file's result with the rule files of the folders between it and the root that
 * this turn has not seen (server/instructions/nested.ts), as OpenCode appends them; the
 * metadata's `loaded` lists them.
 */
async function withNearbyRules(ctx: ToolContext, target: ResolvedPath, result: ToolResult): Promise<ToolResult> {
  const rules = ctx.rules ? await ctx.rules.near(target.absolute, (label) => ctx.check("read", label) !== "deny") : [];
  if (rules.length === 0) return result;
  return {
    ...result,
    output: `${result.output}\n\n<system-reminder>\n${rules.map((rule) => rule.text).join("\n\n")}\n</system-reminder>`,
    metadata: { ...result.metadata, loaded: rules.map((rule) => rule.label) },
  };
}

async function notFound(ctx: ToolContext, target: ResolvedPath): Promise<ToolError> {
  // Names are suggested from the project only: a folder outside is not looked into with the server's rights.
  const suggestions = target.external ? [] : (await similarNames(target.absolute)).map((s) => path.relative(ctx.directory, s));
  return new ToolError(`File not found: ${target.relative}` + (suggestions.length > 0 ? `\n\nDid you mean one of these?\n${suggestions.join("\n")}` : ""));
}

/** A file outside the project, read in the sandbox (outside.ts). */
async function readOutsideFile(ctx: ToolContext, target: ResolvedPath, offset: number, limit: number): Promise<ToolResult> {
  const found = await readOutside(ctx, target);
  if (found.kind === "missing") throw await notFound(ctx, target);
  if (hasBinaryExtension(target.absolute) || looksBinary(found.content.subarray(0, 4096))) throw new ToolError(`Cannot read binary file: ${target.relative}`);
  const text = found.content.toString("utf8");
  const lines = text === "" ? [] : text.replace(/(\r\n|\r|\n)$/, "").split(/\r\n|\r|\n/);
  const note = found.complete ? undefined : `(Only the first ${MAX_OUTSIDE_READ_BYTES / 1024 / 1024} MB of a file outside the project can be read.)`;
  return numbered(lines, target, offset, limit, note);
}

/** The numbered lines from `offset` (at most `limit`, at most MAX_READ_BYTES), with a footer saying what is left. */
async function numbered(source: AsyncIterable<string> | Iterable<string>, target: ResolvedPath, offset: number, limit: number, note?: string): Promise<ToolResult> {
  const lines: string[] = [];
  let total = 0;
  let bytes = 0;
  let cappedByBytes = false;
  for await (const line of source) {
    total++;
    if (total < offset || lines.length >= limit || cappedByBytes) continue;
    const shown = `${String(total).padStart(5, "0")}| ${cutLine(line, MAX_LINE_LENGTH)}`;
    const size = Buffer.byteLength(shown, "utf8") + 1;
    if (bytes + size > MAX_READ_BYTES && lines.length > 0) {
      cappedByBytes = true;
      continue;
    }
    lines.push(shown);
    bytes += size;
  }

  if (total > 0 && offset > total) {
    throw new ToolError(`Offset ${offset} is beyond the end of ${target.relative} (${total} lines).`);
  }
  const last = offset + lines.length - 1;
  const more = last < total;
  let footer: string;
  if (more && cappedByBytes) {
    footer = `(Output capped at ${MAX_READ_BYTES / 1024} KB. File has more lines: use offset=${last + 1} to read beyond line ${last}; ${total} lines in total)`;
  } else if (more) {
    footer = `(File has more lines: use offset=${last + 1} to read beyond line ${last}; ${total} lines in total)`;
  } else {
    footer = `(End of file - total ${total} lines)`;
  }
  const output = ["<file>", ...lines, "", footer, ...(note ? [note] : []), "</file>"].join("\n");
  return {
    title: target.relative,
    output,
    metadata: {
      filePath: target.relative,
      preview: lines.slice(0, 20).join("\n"),
      offset,
      lines: lines.length,
      totalLines: total,
      truncated: more,
    },
  };
}
