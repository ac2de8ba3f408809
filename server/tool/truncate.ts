import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "./files";

/**
 * Output truncation (SPEC §7): a tool output over 2,000 lines or 50 KB is cut, the full
 * text saved under `<dataDir>/tool-output/` for 7 days, and the preview ends with the
 * saved path and a hint on how to look at the rest.
 */

export const MAX_LINES = 2000;
export const MAX_BYTES = 50 * 1024;
export const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const OUTPUT_DIRECTORY = "tool-output";

export interface TruncateOptions {
  dataDir: string;
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

/** Save the full output without overwriting another call's file. */
async function save(dataDir: string, callId: string | undefined, text: string): Promise<string> {
  const dir = path.join(dataDir, OUTPUT_DIRECTORY);
  await fs.mkdir(dir, { recursive: true });
  const base = fileName(callId);
  for (let attempt = 0; ; attempt++) {
    const file = path.join(dir, attempt === 0 ? `${base}.txt` : `${base}_${randomBytes(4).toString("hex")}.txt`);
    try {
      await fs.writeFile(file, text, { encoding: "utf8", flag: "wx" });
      return file;
    } catch (error) {
      if (errorCode(error) !== "EEXIST" || attempt >= 5) throw error;
    }
  }
}

export function hint(outputPath: string, canUseTask: boolean): string {
  const how = canUseTask
    ? "Use the task tool to have a subagent search or process this file, so the full output does not fill your context."
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
  const outputPath = await save(options.dataDir, options.callId, text);
  const marker = `...${removedLines > 0 ? `${removedLines} lines` : `${removedBytes} bytes`} truncated...`;
  const note = hint(outputPath, options.canUseTask);
  const content = direction === "head" ? `${preview}\n\n${marker}\n\n${note}` : `${marker}\n\n${preview}\n\n${note}`;
  return { truncated: true, content, outputPath, removedLines, removedBytes };
}

/** Delete saved outputs older than 7 days; returns how many were deleted. */
export async function sweepToolOutput(dataDir: string, now: number = Date.now()): Promise<number> {
  const dir = path.join(dataDir, OUTPUT_DIRECTORY);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return 0;
    throw error;
  }
  let deleted = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const stat = await fs.lstat(file);
      if (!stat.isFile() || now - stat.mtimeMs <= RETENTION_MS) continue;
      await fs.unlink(file);
      deleted++;
    } catch (error) {
      // Another sweeper (a second server instance) may have removed it first.
      if (errorCode(error) !== "ENOENT") throw error;
    }
  }
  return deleted;
}
