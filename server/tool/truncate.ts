import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "./files";

/**
 * Output truncation: a tool output over 2,000 lines or 50 KB is cut, the full text saved
 * for 7 days in the session's own folder, `<dataDir>/tool-output/<teamId>/<sessionId>/`,
 * and the preview ends with the saved path and a hint on how to look at the rest. That
 * session, and the subagents it runs (their children too), read its saved outputs with
 * read/grep without a question, read-only; no other session can (the data directory is
 * out of every tool's reach).
 */

export const MAX_LINES = 2000;
export const MAX_BYTES = 50 * 1024;
export const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const OUTPUT_DIRECTORY = "tool-output";

/** Where a session's saved outputs live. */
export function outputDirectory(dataDir: string, teamId: string, sessionId: string): string {
  return path.join(dataDir, OUTPUT_DIRECTORY, teamId, sessionId);
}

export interface TruncateOptions {
  /** The session's saved-output folder (outputDirectory). */
  outputDir: string;
  /** Names the saved file; a unique name is made when missing. */
  callId?: string;
  /** Whether the calling agent may use the task tool (changes the hint). */
  canUseTask: boolean;
  /** Keep the start (default) or the end of the output. */
  direction?: "head" | "tail";
  maxLines?: number;
  maxBytes?: number;
}

export type TruncateResult =
  | { truncated: false; content: string }
  | { truncated: true; content: string; outputPath: string; removedLines: number; removedBytes: number };

/** The largest prefix of `text` of at most `maxBytes` UTF-8 bytes, never splitting a character. */
function utf8Head(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, "utf8");
  if (buffer.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end--;
  return buffer.subarray(0, end).toString("utf8");
}

/** The largest suffix of `text` of at most `maxBytes` UTF-8 bytes, never splitting a character. */
function utf8Tail(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, "utf8");
  if (buffer.length <= maxBytes) return text;
  let start = buffer.length - maxBytes;
  while (start < buffer.length && ((buffer[start] ?? 0) & 0xc0) === 0x80) start++;
  return buffer.subarray(start).toString("utf8");
}

/** Pick whole lines from one end within both limits; a single oversized line is cut by bytes. */
function keep(lines: string[], direction: "head" | "tail", maxLines: number, maxBytes: number): string {
  const ordered = direction === "head" ? lines : [...lines].reverse();
  const kept: string[] = [];
  let bytes = 0;
  for (const line of ordered) {
    if (kept.length >= maxLines) break;
    const size = Buffer.byteLength(line, "utf8") + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      if (kept.length === 0) kept.push(direction === "head" ? utf8Head(line, maxBytes) : utf8Tail(line, maxBytes));
      break;
    }
    kept.push(line);
    bytes += size;
  }
  if (direction === "tail") kept.reverse();
  return kept.join("\n");
}

function fileName(callId: string | undefined): string {
  const safe = callId?.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100);
  return safe && safe.length > 0 ? safe : `tool_${Date.now().toString(36)}_${randomBytes(6).toString("hex")}`;
}

/**
 * Make the session's folder: `tool-output` itself stays closed (0700) — no one but the
 * server reaches past it on the host — while the team's and session's folders (0755) and
 * the files (0644) can be read by the sandbox's own user, as which the session's commands
 * read them (the folder is bound into their sandbox; nothing on the way needs to be open).
 */
async function makeOutputDirectory(dir: string): Promise<void> {
  const session = path.resolve(dir);
  const team = path.dirname(session);
  const top = path.dirname(team);
  await fs.mkdir(top, { recursive: true, mode: 0o700 });
  for (const level of [team, session]) {
    try {
      await fs.mkdir(level, { mode: 0o755 });
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
    // Exactly 0755, whatever the umask (or an older server) made it.
    if (!(await fs.lstat(level)).isDirectory()) throw new Error(`${level} is not a directory`);
    await fs.chmod(level, 0o755);
  }
}

/** Save the full output without overwriting another call's file. */
async function save(dir: string, callId: string | undefined, text: string): Promise<string> {
  await makeOutputDirectory(dir);
  const base = fileName(callId);
  for (let attempt = 0; ; attempt++) {
    const file = path.join(dir, attempt === 0 ? `${base}.txt` : `${base}_${randomBytes(4).toString("hex")}.txt`);
    try {
      await fs.writeFile(file, text, { encoding: "utf8", flag: "wx", mode: 0o644 });
      await fs.chmod(file, 0o644);
      return file;
    } catch (error) {
      if (errorCode(error) !== "EEXIST" || attempt >= 5) throw error;
    }
  }
}

export function hint(outputPath: string, canUseTask: boolean): string {
  const how = canUseTask
    ? "Use the task tool to have a subagent search or process this file (give it the path: subagents read and grep their parent's saved outputs), so the full output does not fill your context."
    : "Use the grep tool to search it, or the read tool with offset/limit to view a part of it.";
  return `The tool call succeeded but the output was truncated. Full output saved to: ${outputPath}\n${how}`;
}

export async function truncateOutput(text: string, options: TruncateOptions): Promise<TruncateResult> {
  const maxLines = options.maxLines ?? MAX_LINES;
  const maxBytes = options.maxBytes ?? MAX_BYTES;
  const lines = text.split("\n");
  const totalBytes = Buffer.byteLength(text, "utf8");
  if (lines.length <= maxLines && totalBytes <= maxBytes) return { truncated: false, content: text };

  const direction = options.direction ?? "head";
  const preview = keep(lines, direction, maxLines, maxBytes);
  const keptLines = preview === "" ? 0 : preview.split("\n").length;
  const removedLines = lines.length - keptLines;
  const removedBytes = totalBytes - Buffer.byteLength(preview, "utf8");
  const outputPath = await save(options.outputDir, options.callId, text);
  const marker = `...${removedLines > 0 ? `${removedLines} lines` : `${removedBytes} bytes`} truncated...`;
  const note = hint(outputPath, options.canUseTask);
  const content = direction === "head" ? `${preview}\n\n${marker}\n\n${note}` : `${marker}\n\n${preview}\n\n${note}`;
  return { truncated: true, content, outputPath, removedLines, removedBytes };
}

/**
 * Delete saved outputs older than 7 days, and the folders left empty; returns how many
 * files were deleted. Another instance may sweep at the same time: what it removed first
 * is not an error.
 */
export async function sweepToolOutput(dataDir: string, now: number = Date.now()): Promise<number> {
  return sweepDirectory(path.join(dataDir, OUTPUT_DIRECTORY), now, 0);
}

const SWEEP_DEPTH = 2; // tool-output/<team>/<session>/<file>

async function sweepDirectory(dir: string, now: number, depth: number): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return 0;
    throw error;
  }
  let deleted = 0;
  for (const name of names) {
    const entry = path.join(dir, name);
    try {
      const stat = await fs.lstat(entry);
      if (stat.isDirectory() && depth < SWEEP_DEPTH) {
        deleted += await sweepDirectory(entry, now, depth + 1);
        await fs.rmdir(entry).catch((error: unknown) => {
          if (errorCode(error) !== "ENOTEMPTY" && errorCode(error) !== "ENOENT" && errorCode(error) !== "EEXIST") throw error;
        });
      } else if (stat.isFile() && now - stat.mtimeMs > RETENTION_MS) {
        await fs.unlink(entry);
        deleted++;
      }
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
    }
  }
  return deleted;
}

/** Delete a session's saved outputs (the session is being deleted). */
export async function removeOutputs(dataDir: string, teamId: string, sessionId: string): Promise<void> {
  await fs.rm(outputDirectory(dataDir, teamId, sessionId), { recursive: true, force: true });
}
