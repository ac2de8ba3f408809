import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { cutLine, errorCode, isEnvFile, looksBinary, walk } from "./files";
import { pathMatcher } from "./glob-match";
import { resolvePath } from "./paths";
import { define, ToolError } from "./tool";

export const GREP_LIMIT = 100;
const MAX_LINE_LENGTH = 2000;
/** Files larger than this are not searched (logs, dumps). */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

const parameters = z.object({
  pattern: z.string().min(1).describe("A JavaScript regular expression to search for in file contents, e.g. \"function\\s+\\w+\" or \"TODO|FIXME\"."),
  path: z.string().optional().describe("The directory (or single file) to search in (default: the project directory)."),
  include: z.string().optional().describe('Only search files whose path matches this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}".'),
});

interface FileMatches {
  file: string;
  mtime: number;
  lines: { line: number; text: string }[];
}

async function searchFile(file: string, regex: RegExp): Promise<FileMatches | undefined> {
  let content: Buffer;
  let mtime: number;
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
    mtime = stat.mtimeMs;
    content = await fs.readFile(file);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "EACCES" || code === "EPERM") return undefined;
    throw error;
  }
  if (looksBinary(content.subarray(0, 4096))) return undefined;
  const lines = content.toString("utf8").split("\n");
  const found: FileMatches["lines"] = [];
  lines.forEach((raw, i) => {
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (found.length < GREP_LIMIT && regex.test(text)) found.push({ line: i + 1, text: cutLine(text, MAX_LINE_LENGTH) });
  });
  return found.length > 0 ? { file, mtime, lines: found } : undefined;
}

export const grep = define({
  id: "grep",
  description: [
    "Search file contents with a regular expression (JavaScript syntax); results are grouped by file, newest files first, with line numbers.",
    '- Narrow the files with include (a glob: "*.ts", "src/**/*.{ts,tsx}"; without `/` it matches file names at any depth).',
    "- Binary files, .env files and dependency/build/VCS directories are skipped.",
    `- At most ${GREP_LIMIT} matching lines are returned; refine the pattern, path or include when there are more.`,
    "- To find files by name use glob.",
  ].join("\n"),
  parameters,
  async execute(input, ctx) {
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern);
    } catch (error) {
      throw new ToolError(`Invalid regular expression ${JSON.stringify(input.pattern)}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const target = await resolvePath(ctx, input.path, { kind: "directory" });
    await ctx.ask({ permission: "grep", patterns: [input.pattern], metadata: { path: target.absolute, include: input.include } });

    let files: { path: string; rel: string }[];
    try {
      const stat = await fs.stat(target.absolute);
      files = stat.isDirectory() ? [] : [{ path: target.absolute, rel: path.basename(target.absolute) }];
    } catch (error) {
      if (errorCode(error) === "ENOENT") throw new ToolError(`Path not found: ${target.relative}`);
      throw error;
    }
    const include = input.include === undefined ? undefined : pathMatcher(input.include);
    const searchAll = files.length === 0;

    const results: FileMatches[] = [];
    let skippedEnv = 0;
    const consider = async (file: { path: string; rel: string }) => {
      if (include && !include(file.rel)) return;
      if (isEnvFile(file.path)) {
        skippedEnv++;
        return;
      }
      const found = await searchFile(file.path, regex);
      if (found) results.push(found);
    };
    if (searchAll) {
      for await (const entry of walk(target.absolute, { signal: ctx.abort })) {
        if (entry.kind === "file") await consider(entry);
      }
    } else {
      for (const file of files) await consider(file);
    }

    results.sort((a, b) => b.mtime - a.mtime || a.file.localeCompare(b.file));
    const total = results.reduce((sum, r) => sum + r.lines.length, 0);
    const display = (file: string) => (target.external ? file : path.relative(ctx.directory, file));
    const out: string[] = [];
    let shown = 0;
    for (const result of results) {
      if (shown >= GREP_LIMIT) break;
      out.push(`${display(result.file)}:`);
      for (const match of result.lines) {
        if (shown >= GREP_LIMIT) break;
        out.push(`  Line ${match.line}: ${match.text}`);
        shown++;
      }
      out.push("");
    }
    // A file stops collecting at GREP_LIMIT lines, so the total is then a lower bound.
    const atLeast = results.some((r) => r.lines.length >= GREP_LIMIT);
    const capped = total > GREP_LIMIT || atLeast;
    const header =
      total === 0
        ? "No matches found"
        : capped
          ? `Found ${atLeast ? "at least " : ""}${total} matches (showing the first ${shown})`
          : `Found ${total} matches`;
    const notes: string[] = [];
    if (capped) notes.push(`(Results capped at ${GREP_LIMIT} matches. Use a more specific pattern, path or include.)`);
    if (skippedEnv > 0) notes.push(`(${skippedEnv} .env file(s) skipped; use the read tool to view them.)`);
    const output = [header, ...(out.length > 0 ? ["", ...out] : [""]), ...notes].join("\n").trimEnd();
    return {
      title: input.pattern,
      output,
      metadata: { matches: total, files: results.length, capped, path: target.relative },
    };
  },
});
