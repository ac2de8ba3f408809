import { constants as fsConstants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { MAX_TEXT_BYTES } from "../../lib/attachments";
import { ParleyError } from "../errors";
import { fn } from "../fn";
import * as Id from "../id";
import { refuseNul } from "../nul";
import { decide, describeDenial } from "../permission/layers";
import type { AgentRef } from "../permission/permission";
import { Ruleset } from "../permission/schema";
import type { Context } from "../services";
import { errorCode, isBinaryHandle, walk } from "../tool/files";
import { openChecked, realLocation } from "../tool/paths";
import { isInside } from "../inside";
import { ToolError } from "../tool/tool";
import type { Session as SessionRow } from "../db/generated/client";
import { sessionRow } from "./access";
import { rulesAndReach } from "./toolset";

/**
 * The project's files as the composer offers them for `@` mentions, and the content a
 * mention brings to the model. Only the session's project is reached: paths are relative
 * to its directory, symlinks are never followed out of it (a listed file is a regular file
 * inside; a mentioned path is resolved and must stay inside), dependency/VCS folders
 * (node_modules, .git, …) and Parley's own places are skipped.
 */

/** Files a listing returns at most. */
export const MAX_LISTED = 50;
/** Entries a listing looks at before it stops (a huge tree answers with what it found). */
export const MAX_SCANNED = 20_000;
/** How long a listing may walk before it answers with what it found. */
const SCAN_MS = 1_500;
/** The largest file a mention brings to the model (the same as an attached text file). */
export const MAX_MENTION_BYTES = MAX_TEXT_BYTES;

export const FilesInput = z.object({
  sessionId: Id.schema("session"),
  /** What follows the `@`: part of a path ("src/gr", "greet"); empty lists the shallowest files. */
  query: refuseNul(z.string().max(500), "a file search").default(""),
  limit: z.number().int().min(1).max(MAX_LISTED).default(20),
});
export type FilesInput = z.input<typeof FilesInput>;

/** A path relative to the project, as a mention names it. */
export const MentionPath = refuseNul(z.string().trim().min(1, "the file path is empty").max(1000), "a file path");

/** The session's folder: its workspace, made now if it is not yet (sessions made before workspaces: the project's). */
async function projectRoot(ctx: Context, row: SessionRow): Promise<string> {
  const directory = row.workspaceId ? (await ctx.workspaces.ready(row.workspaceId)).directory : row.directory;
  try {
    return await fs.realpath(directory);
  } catch (error) {
    throw new ParleyError("NOT_FOUND", `the project directory ${directory} is not accessible`, { cause: error });
  }
}

/**
 * How well `file` answers `query` (lower is better), undefined when it does not: the path
 * starts with it, then the file name does, then the path contains it, then (for a query
 * without "/") the query's characters appear in order in the file name.
 */
export function rank(file: string, query: string): number | undefined {
  const q = query.toLowerCase().replace(/^\.\//, "");
  if (q === "") return 0;
  const lower = file.toLowerCase();
  if (lower.startsWith(q)) return 0;
  const name = lower.slice(lower.lastIndexOf("/") + 1);
  if (name.startsWith(q)) return 1;
  if (lower.includes(q)) return 2;
  // A query with a "/" names a path: only paths containing it match.
  if (q.includes("/")) return undefined;
  let at = 0;
  for (const char of q) {
    at = name.indexOf(char, at);
    if (at === -1) return undefined;
    at++;
  }
  return 3;
}

/**
 * Files of the session's project matching `query`, best first (then shorter paths, then by
 * name), relative to the project directory. Only regular files: a symlink is not listed,
 * wherever it leads.
 */
export const files = fn(FilesInput, async (ctx: Context, input): Promise<{ files: string[]; complete: boolean }> => {
  const row = await sessionRow(ctx, input.sessionId);
  const root = await projectRoot(ctx, row);
  const skipped = new Set(ctx.settings.forbidden);
  const found: { file: string; rank: number }[] = [];
  const signal = AbortSignal.timeout(SCAN_MS);
  let scanned = 0;
  let complete = true;
  const entries = walk(root, { skip: (entry) => entry.kind === "directory" && skipped.has(entry.path) });
  for await (const entry of entries) {
    if (++scanned > MAX_SCANNED || signal.aborted) {
      complete = false;
      break;
    }
    if (entry.kind !== "file") continue;
    const r = rank(entry.rel, input.query);
    if (r !== undefined) found.push({ file: entry.rel, rank: r });
  }
  found.sort((a, b) => a.rank - b.rank || a.file.length - b.file.length || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { files: found.slice(0, input.limit).map((f) => f.file), complete };
});

export interface MentionedFile {
  mime: string;
  filename: string;
  url: string;
  source: { type: "file"; path: string };
}

/**
 * The content of a file a member mentioned (`@src/greet.ts`), as a file part brings it to
 * the model. Refused: a path leaving the project (`..`, absolute, or a symlink leading out),
 * a folder, a binary or too large file, and a file the rules deny reading (a deny of the
 * server config, the team's or project's policy, or the session). A read the rules would
 * ask about is allowed: the member asked for it themselves — unless `strict` (a command's
 * template named the file, not the member: a read the rules ask about is refused too).
 * `row` is a session the caller may use (read through sessionRow).
 */
export async function mentionedFile(ctx: Context, row: SessionRow, filePath: string, agent: AgentRef, options: { strict?: boolean } = {}): Promise<MentionedFile> {
  const wanted = MentionPath.parse(filePath);
  const root = await projectRoot(ctx, row);
  if (path.isAbsolute(wanted)) throw ParleyError.invalid(`@${wanted}: name a file by its path inside the project`);
  const absolute = path.resolve(root, wanted);
  const relative = path.relative(root, absolute);
  if (!isInside(root, absolute) || relative === "") throw ParleyError.invalid(`@${wanted} is outside the project`);
  const real = await realLocation(absolute);
  if (!isInside(root, real)) throw ParleyError.invalid(`@${wanted} leads outside the project`);
  const shown = relative.split(path.sep).join("/");

  const { layers } = await rulesAndReach(ctx, { teamId: row.teamId, projectId: row.projectId, agent, sessionRules: Ruleset.safeParse(row.permission).data });
  const decision = decide("read", shown, layers);
  if (decision.action === "deny") throw new ParleyError("FORBIDDEN", describeDenial("read", shown, decision));
  if (decision.action === "ask" && options.strict) {
    throw new ParleyError("FORBIDDEN", `@${shown}: the rules ask before this file is read, and the command's template (not you) names it; mention it yourself to include it`);
  }

  let handle: FileHandle;
  try {
    // Non-blocking, never through a link, and only a regular file (a FIFO, socket or device is refused before any read).
    handle = await openChecked({ absolute, real, relative: shown, external: false }, fsConstants.O_RDONLY);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") throw new ParleyError("NOT_FOUND", `@${shown}: there is no such file in the project`, { cause: error });
    if (error instanceof ToolError) throw new ParleyError("INVALID", `@${error.message}`, { cause: error });
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (stat.size > MAX_MENTION_BYTES) throw ParleyError.invalid(`@${shown} is ${Math.ceil(stat.size / 1024)} KB; a mentioned file may be at most ${MAX_MENTION_BYTES / 1024} KB`);
    if (await isBinaryHandle(handle, real)) throw ParleyError.invalid(`@${shown} is not a text file`);
    const content = await readAtMost(handle, stat.size);
    return { mime: "text/plain", filename: shown, url: `data:text/plain;base64,${content.toString("base64")}`, source: { type: "file", path: shown } };
  } finally {
    await handle.close();
  }
}

/** The content of an open file, at most `max` bytes (its size when checked: a file that grows meanwhile is not read past it). */
async function readAtMost(handle: FileHandle, max: number): Promise<Buffer> {
  const buffer = Buffer.alloc(max);
  let length = 0;
  while (length < max) {
    const { bytesRead } = await handle.read(buffer, length, max - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return buffer.subarray(0, length);
}
