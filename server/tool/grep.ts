import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { runProcess } from "../sandbox/run";
import { cutLine, errorCode, IGNORED_DIRECTORIES } from "./files";
import { pathMatcher } from "./glob-match";
import { resolvePath } from "./paths";
import { define, ToolError, type ToolContext } from "./tool";

export const GREP_LIMIT = 100;
const MAX_LINE_LENGTH = 2000;
/** Files larger than this are not searched (logs, dumps). */
const MAX_FILE_SIZE = "10M";
/** A search that takes longer is stopped (what it found so far is shown). */
export const GREP_TIMEOUT_MS = 30_000;
/** A search whose results pass this size is stopped (what it found so far is shown). */
const MAX_RESULT_BYTES = 16 * 1024 * 1024;

const parameters = z.object({
  pattern: z
    .string()
    .min(1)
    .max(10_000)
    .describe('A regular expression to search for in file contents (ripgrep/Rust syntax, e.g. "function\\s+\\w+" or "TODO|FIXME"; no look-around or back-references).'),
  path: z.string().optional().describe("The directory (or single file) to search in (default: the project directory)."),
  include: z.string().max(4096).optional().describe('Only search files whose path matches this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}".'),
});

interface FileMatches {
  file: string;
  lines: { line: number; text: string }[];
}

const RgText = z.object({ text: z.string() }).or(z.object({ bytes: z.string() }));
const RgMatch = z.object({
  type: z.literal("match"),
  data: z.object({ path: RgText, lines: RgText, line_number: z.number().nullable() }),
});

function textOf(value: z.infer<typeof RgText>): string {
  return "text" in value ? value.text : Buffer.from(value.bytes, "base64").toString("utf8");
}

/** What to do with a file ripgrep found matches in. */
type Verdict = "keep" | "excluded" | "secret";

interface Search {
  results: FileMatches[];
  /** Files with matches that reading would need permission for (skipped). */
  secret: number;
  /** Why the search ended before ripgrep finished, when it did. */
  stopped?: string;
  /** Enough lines were found and the search was ended early: the counts are lower bounds. */
  partial: boolean;
}

/** Matching lines kept before the search is ended early (the first GREP_LIMIT of the newest files are shown). */
const COLLECT_LIMIT = 10 * GREP_LIMIT;

/**
 * Run ripgrep in the sandbox: a linear-time regex engine (no pattern can stall anything),
 * with a time and an output budget; it respects .gitignore and skips binary files. Files
 * are judged as they come (`verdict`), and once enough lines are kept ripgrep is ended.
 */
async function ripgrep(ctx: ToolContext, pattern: string, target: string, readable: string[], verdict: (file: string) => Verdict): Promise<Search> {
  const rg = ctx.sandbox.which("rg");
  if (!rg) throw new ToolError("The grep tool needs ripgrep (`rg`), which is not installed on this server: install the `ripgrep` package (e.g. `apt-get install -y ripgrep`).");
  const ignored = [...IGNORED_DIRECTORIES].flatMap((name) => ["--glob", `!${name}`]);
  const argv = [rg, "--json", "--no-config", "--hidden", "--no-require-git", "--max-filesize", MAX_FILE_SIZE, "--max-count", String(GREP_LIMIT), ...ignored, "--regexp", pattern, "--", target];
  const byFile = new Map<string, FileMatches>();
  const verdicts = new Map<string, Verdict>();
  const enough = new AbortController();
  let kept = 0;
  let pending = "";
  let stderr = "";
  const onMatch = (file: string, line: number, text: string) => {
    let judged = verdicts.get(file);
    if (judged === undefined) verdicts.set(file, (judged = verdict(file)));
    if (judged !== "keep" || kept >= COLLECT_LIMIT) return;
    const entry = byFile.get(file) ?? { file, lines: [] };
    entry.lines.push({ line, text: cutLine(text.replace(/\r?\n$/, ""), MAX_LINE_LENGTH) });
    byFile.set(file, entry);
    if (++kept >= COLLECT_LIMIT) enough.abort();
  };
  const onLine = (line: string) => {
    if (!line.startsWith('{"type":"match"')) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      // A line cut by the output budget: the search is reported as stopped.
      return;
    }
    const parsed = RgMatch.safeParse(json);
    if (parsed.success) onMatch(textOf(parsed.data.data.path), parsed.data.data.line_number ?? 0, textOf(parsed.data.data.lines));
  };
  const result = await runProcess(
    ctx.sandbox,
    { argv, project: ctx.directory, readable },
    {
      timeoutMs: GREP_TIMEOUT_MS,
      signal: AbortSignal.any([ctx.abort, enough.signal]),
      graceMs: 500,
      maxOutputBytes: MAX_RESULT_BYTES,
      onStdout: (text) => {
        const lines = (pending + text).split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) onLine(line);
      },
      onStderr: (text) => {
        if (stderr.length < 10_000) stderr += text;
      },
    },
  );
  if (result.ended === "abort" && !enough.signal.aborted) throw new DOMException("The search was aborted", "AbortError");
  if (result.ended === "exit" && result.exit === 2 && byFile.size === 0 && /regex parse error|error parsing/i.test(stderr)) {
    throw new ToolError(`Invalid regular expression ${JSON.stringify(pattern)}: ${stderr.trim().split("\n").slice(1).join(" ").replace(/\s+/g, " ").trim()}`);
  }
  const stopped =
    result.ended === "timeout"
      ? `(The search was stopped after ${GREP_TIMEOUT_MS / 1000} s; the results are incomplete. Narrow the path, include or pattern.)`
      : result.ended === "output-limit"
        ? "(The search was stopped: it produced too much output; the results are incomplete. Use a more specific pattern.)"
        : undefined;
  const secret = [...verdicts.values()].filter((v) => v === "secret").length;
  return { results: await newestFirst([...byFile.values()]), secret, partial: result.ended !== "exit", ...(stopped ? { stopped } : {}) };
}

/** Files with the most recent change first (then by path). */
async function newestFirst(results: FileMatches[]): Promise<FileMatches[]> {
  const times = new Map<string, number>();
  for (const r of results) {
    try {
      times.set(r.file, (await fs.lstat(r.file)).mtimeMs);
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
      times.set(r.file, 0);
    }
  }
  return results.sort((a, b) => (times.get(b.file) ?? 0) - (times.get(a.file) ?? 0) || a.file.localeCompare(b.file));
}

export const grep = define({
  id: "grep",
  description: [
    "Search file contents with a regular expression (ripgrep syntax); results are grouped by file, newest files first, with line numbers.",
    '- Narrow the files with include (a glob: "*.ts", "src/**/*.{ts,tsx}"; without `/` it matches file names at any depth).',
    "- Binary files, files listed in .gitignore, dependency/build/VCS directories, and files that need permission to read (such as .env) are skipped.",
    `- At most ${GREP_LIMIT} matching lines are returned; refine the pattern, path or include when there are more.`,
    "- To find files by name use glob.",
  ].join("\n"),
  parameters,
  async execute(input, ctx) {
    const include = input.include === undefined ? undefined : pathMatcher(input.include);
    const target = await resolvePath(ctx, input.path, { kind: "directory" });
    await ctx.ask({ permission: "grep", patterns: [input.pattern], metadata: { path: target.absolute, include: input.include } });
    let isDirectory: boolean;
    try {
      isDirectory = (await fs.stat(target.absolute)).isDirectory();
    } catch (error) {
      if (errorCode(error) === "ENOENT") throw new ToolError(`Path not found: ${target.relative}`);
      throw error;
    }
    // Paths as the model should see them, and the rules' view of reading each file.
    const base = isDirectory ? target.real : path.dirname(target.real);
    const shownAs = (file: string) => (target.external ? path.join(target.absolute, path.relative(target.real, file)) : path.relative(ctx.directory, path.join(target.absolute, path.relative(target.real, file))));
    const verdict = (file: string): Verdict => {
      if (include && !include(path.relative(base, file).split(path.sep).join("/"))) return "excluded";
      return ctx.check("read", shownAs(file)) === "allow" ? "keep" : "secret";
    };
    const search = await ripgrep(ctx, input.pattern, target.real, target.external ? [target.real] : [], verdict);
    return { title: input.pattern, output: render(search, shownAs), metadata: summary(search, target.relative) };
  },
});

function summary(search: Search, where: string) {
  const total = search.results.reduce((sum, r) => sum + r.lines.length, 0);
  return { matches: total, files: search.results.length, capped: capped(search), path: where };
}

/** More lines were found than are shown. */
function capped(search: Search): boolean {
  const total = search.results.reduce((sum, r) => sum + r.lines.length, 0);
  return total > GREP_LIMIT || atLeast(search);
}

/** The counts are lower bounds: a file stops at GREP_LIMIT lines, or the search ended early. */
function atLeast(search: Search): boolean {
  return search.partial || search.results.some((r) => r.lines.length >= GREP_LIMIT);
}

function render(search: Search, shownAs: (file: string) => string): string {
  const { results, secret: skipped, stopped } = search;
  const total = results.reduce((sum, r) => sum + r.lines.length, 0);
  const out: string[] = [];
  let shown = 0;
  for (const result of results) {
    if (shown >= GREP_LIMIT) break;
    out.push(`${shownAs(result.file)}:`);
    for (const match of result.lines) {
      if (shown >= GREP_LIMIT) break;
      out.push(`  Line ${match.line}: ${match.text}`);
      shown++;
    }
    out.push("");
  }
  const header =
    total === 0 ? "No matches found" : capped(search) ? `Found ${atLeast(search) ? "at least " : ""}${total} matches (showing the first ${shown})` : `Found ${total} matches`;
  const notes: string[] = [];
  if (capped(search)) notes.push(`(Results capped at ${GREP_LIMIT} matches. Use a more specific pattern, path or include.)`);
  if (skipped > 0) notes.push(`(${skipped} file(s) with matches skipped: reading them needs permission, such as .env files; use the read tool to view one.)`);
  if (stopped) notes.push(stopped);
  return [header, ...(out.length > 0 ? ["", ...out] : [""]), ...notes].join("\n").trimEnd();
}
