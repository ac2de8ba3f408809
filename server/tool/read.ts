import { constants as fsConstants, promises as fs, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { cutLine, errorCode, isBinaryHandle } from "./files";
import { openChecked, type ResolvedPath, resolvePath } from "./paths";
import { define, ToolError, type ToolResult } from "./tool";

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
    const target = await resolvePath(ctx, input.filePath);
    await ctx.ask({ permission: "read", patterns: [target.relative], metadata: { filepath: target.absolute } });

    let stat: Stats;
    try {
      stat = await fs.stat(target.absolute);
    } catch (error) {
      if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") throw error;
      const suggestions = (await similarNames(target.absolute)).map((s) => (target.external ? s : path.relative(ctx.directory, s)));
      throw new ToolError(
        `File not found: ${target.relative}` + (suggestions.length > 0 ? `\n\nDid you mean one of these?\n${suggestions.join("\n")}` : ""),
      );
    }
    if (stat.isDirectory()) throw new ToolError(`${target.relative} is a directory, not a file. Use the list tool to see its contents.`);
    if (!stat.isFile()) throw new ToolError(`${target.relative} is not a regular file.`);
    const handle = await openChecked(target, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOCTTY);
    try {
      return await readLines(handle, target, input.offset ?? 1, input.limit ?? DEFAULT_READ_LIMIT);
    } finally {
      await handle.close();
    }
  },
});

async function readLines(handle: FileHandle, target: ResolvedPath, offset: number, limit: number): Promise<ToolResult> {
  if (!(await handle.stat()).isFile()) throw new ToolError(`${target.relative} is not a regular file.`);
  if (await isBinaryHandle(handle, target.absolute)) throw new ToolError(`Cannot read binary file: ${target.relative}`);

  const lines: string[] = [];
  let total = 0;
  let bytes = 0;
  let cappedByBytes = false;
  const stream = handle.createReadStream({ encoding: "utf8", start: 0, autoClose: false });
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of reader) {
      total++;
      if (total < offset || lines.length >= limit || cappedByBytes) continue;
      const numbered = `${String(total).padStart(5, "0")}| ${cutLine(line, MAX_LINE_LENGTH)}`;
      const size = Buffer.byteLength(numbered, "utf8") + 1;
      if (bytes + size > MAX_READ_BYTES && lines.length > 0) {
        cappedByBytes = true;
        continue;
      }
      lines.push(numbered);
      bytes += size;
    }
  } finally {
    reader.close();
    stream.destroy();
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
  const output = ["<file>", ...lines, "", footer, "</file>"].join("\n");
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
