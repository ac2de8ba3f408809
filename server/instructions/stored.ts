import path from "node:path";
import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { ParleyError, isParleyError } from "../errors";
import { parse } from "../fn";
import * as Id from "../id";
import { refuseNul } from "../nul";
import type { Context, Services } from "../services";
import { sessionRow } from "../session/access";
import type { InstructionSource } from "../session/message";
import { messageFromRow, partFromRow } from "../session/rows";
import { readConfined } from "./read";
import { isInside } from "../inside";
import { DEFAULT_MAX_FILE_BYTES, type InstructionSettings, NO_INSTRUCTION_SETTINGS, RULE_FILES, fetchText, type Gathered, gather, isUrl, patternOf, sha256, type UrlCache } from "./sources";
import { logger } from "../log";
import type { WorkspaceFiles } from "../workspace/workspace";
import { perBus } from "../bus/team-kept";

const log = logger("instructions");

/**
 * The instructions a team and its projects give the agent, stored in the database: every
 * member reads them, owners and admins write them (the Team page, `instructions.*`).
 * They come first in every step's system prompt, labelled "team" and "project".
 */

/** Characters one stored text may have (a little over the per-source limit of the prompt is never reached: 64 KB). */
export const MAX_STORED_CHARS = 32_000;

export const Scope = z.object({ projectId: Id.schema("project").optional() });
export type Scope = z.infer<typeof Scope>;
export const SetInput = Scope.extend({ text: refuseNul(z.string().max(MAX_STORED_CHARS, `instructions may have at most ${MAX_STORED_CHARS} characters`), "instructions") });
export type SetInput = z.infer<typeof SetInput>;

export interface Stored {
  text: string;
  /** Whether the caller may change it (owners and admins). */
  editable: boolean;
}

async function ownProject(ctx: Pick<Context, "db" | "actor">, projectId: string) {
  const row = await ctx.db.project.findUnique({ where: { id: projectId }, select: { teamId: true, instructions: true } });
  if (!row || row.teamId !== ctx.actor.teamId) throw ParleyError.notFound("project", projectId);
  return row;
}

async function isAdmin(ctx: Pick<Context, "db" | "actor">): Promise<boolean> {
  const membership = await ctx.db.membership.findUnique({ where: { teamId_userId: { teamId: ctx.actor.teamId, userId: ctx.actor.userId } }, select: { role: true } });
  return membership !== null && ADMIN_ROLES.includes(membership.role);
}

/** The team's instructions (no project) or one project's; every member reads them. */
export async function get(ctx: Pick<Context, "db" | "actor">, input: Scope): Promise<Stored> {
  const scope = parse(Scope, input);
  const text = scope.projectId
    ? (await ownProject(ctx, scope.projectId)).instructions
    : (await ctx.db.team.findUnique({ where: { id: ctx.actor.teamId }, select: { instructions: true } }))?.instructions;
  return { text: text ?? "", editable: await isAdmin(ctx) };
}

/** Replace the team's or a project's instructions (owners and admins only); an empty text removes them. */
export async function set(ctx: Pick<Context, "db" | "actor" | "bus">, input: SetInput): Promise<Stored> {
  const { projectId, text } = parse(SetInput, input);
  await requireRole(ctx, ADMIN_ROLES, projectId ? "write a project's instructions" : "write the team's instructions");
  const value = text.trim() === "" ? null : text;
  if (projectId) {
    await ownProject(ctx, projectId);
    await ctx.db.project.update({ where: { id: projectId }, data: { instructions: value } });
  } else {
    await ctx.db.team.update({ where: { id: ctx.actor.teamId }, data: { instructions: value } });
  }
  // Every instance reads them again at its next step.
  storedKept(ctx.bus).forget(ctx.actor.teamId);
  return { text: value ?? "", editable: true };
}

/** The team's and a project's stored instructions, with the project's folder and team, as a step reads them. */
interface StoredRow {
  team: string | null;
  instructions: string | null;
  directory: string | null;
  teamId: string | null;
}

/** Each step reads them; they change only through `set`, which forgets them on every instance. */
const storedKept = perBus<StoredRow | undefined>("instructions");

/** The team's and the project's in one statement. */
async function readStored(db: Services["db"], teamId: string, projectId: string): Promise<StoredRow | undefined> {
  const [row] = await db.$queryRaw<StoredRow[]>`
    SELECT (SELECT t.instructions FROM "Team" t WHERE t.id = ${teamId}) AS team, p.instructions, p.directory, p."teamId"
    FROM (SELECT 1) AS one LEFT JOIN "Project" p ON p.id = ${projectId}`;
  return row;
}

/** Where a step's instructions come from: the session's row as the loop read it. */
export interface StepScope {
  teamId: string;
  projectId: string;
  directory: string;
  workspaceId: string | null;
  signal?: AbortSignal;
  /** URLs the run fetched already (sources.ts). */
  urlCache?: UrlCache;
  /** The step's reader of the workspace (Workspaces.files), shared with its agent files; one of its own otherwise. */
  files?: WorkspaceFiles;
}

/**
 * A step's instructions: the stored ones, then the workspace's files and the configured
 * ones (sources.ts). The workspace is made first when it is not yet (its files are what
 * the rules are read from); when it cannot be made, only the stored instructions are used
 * (the first tool reports why).
 */
export async function forStep(s: Services, scope: StepScope): Promise<Gathered> {
  const stored = await storedKept(s.bus).get(scope.teamId, scope.projectId, () => readStored(s.db, scope.teamId, scope.projectId));
  const team = stored ? { instructions: stored.team } : null;
  const own = stored?.directory != null && stored.teamId === scope.teamId ? { instructions: stored.instructions, directory: stored.directory } : null;
  const settings = s.settings.instructions ?? NO_INSTRUCTION_SETTINGS;
  let files = true;
  const gatherFrom = (root: string, fixed?: string) =>
    gather({
      ...(fixed === undefined ? {} : { fixed }),
      root,
      directory: root,
      ...(own ? { projectDirectory: own.directory } : {}),
      team: team?.instructions ?? null,
      project: own?.instructions ?? null,
      settings,
      files,
      ...(scope.signal ? { signal: scope.signal } : {}),
      ...(scope.urlCache ? { urlCache: scope.urlCache } : {}),
    });
  if (scope.workspaceId) {
    try {
      // A tree still being made (a new session's first step): its rule files are read from
      // its base commit, the same bytes, so the answer does not wait for the whole checkout.
      const want = { folders: earlyFolders(settings, own?.directory), file: (file: string) => mayInstruct(file, settings, own?.directory) };
      return await (scope.files ?? s.workspaces.files(scope.workspaceId)).read(want, MAX_EARLY_FILES, gatherFrom);
    } catch (error) {
      files = false;
      log.error(`the files of workspace ${scope.workspaceId} could not be read: its rule files are not used this step`, error);
    }
  }
  return gatherFrom(scope.directory);
}

/** Files of a base commit the first step reads at most (rule files at its root, and matches of the configured patterns). */
const MAX_EARLY_FILES = 200;

/** Where in a base commit the instruction sources may be: the rule files at its root, and the folders the configured patterns start with ("all" when one starts with a wildcard). */
function earlyFolders(settings: InstructionSettings, projectDirectory: string | undefined): string[] | "all" {
  const folders: string[] = [...RULE_FILES];
  for (const entry of settings.paths) {
    if (isUrl(entry)) continue;
    const where = patternOf(entry, projectDirectory ?? "/", projectDirectory);
    if (!("pattern" in where)) continue;
    const fixed = where.pattern.split("/").findIndex((part) => /[*?[{]/.test(part));
    const parts = where.pattern.split("/");
    const prefix = (fixed === -1 ? parts : parts.slice(0, fixed)).join("/");
    if (prefix === "") return "all";
    folders.push(prefix);
  }
  return folders;
}

/** Whether a file of the base (a path relative to its root) may be an instruction source: a rule file at the root, or a match of a configured path. */
function mayInstruct(file: string, settings: InstructionSettings, projectDirectory: string | undefined): boolean {
  if ((RULE_FILES as readonly string[]).includes(file)) return true;
  return settings.paths.some((entry) => {
    if (isUrl(entry)) return false;
    // An absolute path names a file of the project's folder, whose paths the base shares.
    if (path.isAbsolute(entry) && (projectDirectory === undefined || !isInside(projectDirectory, path.resolve(entry)))) return false;
    const where = patternOf(entry, projectDirectory ?? "/", projectDirectory);
    return "pattern" in where && path.matchesGlob(file, where.pattern);
  });
}

export const OpenInput = z.object({ sessionId: Id.schema("session"), messageId: Id.schema("message"), label: z.string().min(1).max(4096) });
export type OpenInput = z.infer<typeof OpenInput>;

export interface Opened {
  kind: InstructionSource["kind"];
  label: string;
  /** Its text now (undefined when it is gone or cannot be read: `note` says why). */
  text?: string;
  note?: string;
  /** Whether it differs from what the turn's prompt held (unknown for nested rules, which record no digest). */
  changed?: boolean;
}

/**
 * One source a turn used, as it reads now, for members of the session's team: only a
 * source the turn recorded (its system prompt's, or a nested rule a read of it appended),
 * read as the step read it (confined to the workspace).
 */
export async function open(ctx: Context, input: OpenInput): Promise<Opened> {
  const { sessionId, messageId, label } = parse(OpenInput, input);
  const row = await sessionRow(ctx, sessionId);
  const message = await ctx.db.message.findUnique({ where: { id: messageId }, include: { parts: { orderBy: { id: "asc" } } } });
  if (!message || message.sessionId !== sessionId) throw ParleyError.notFound("message", messageId);
  const info = messageFromRow(message);
  if (info.role !== "assistant") throw ParleyError.notFound("message", messageId);
  const recorded = info.instructions?.find((source) => source.label === label && source.skipped === undefined);
  const nested = message.parts.map(partFromRow).some((part) => {
    if (part.type !== "tool" || part.tool !== "read" || part.state.status !== "completed") return false;
    const loaded = part.state.metadata.loaded;
    return Array.isArray(loaded) && loaded.includes(label);
  });
  if (!recorded && !nested) throw ParleyError.notFound("instruction source", label);
  const kind = recorded?.kind ?? "file";
  const was = recorded?.sha256;
  const result = (text: string | undefined, note?: string): Opened => ({
    kind,
    label,
    ...(text !== undefined ? { text } : {}),
    ...(note ? { note } : {}),
    ...(text !== undefined && was !== undefined ? { changed: sha256(text) !== was } : {}),
  });
  if (kind === "team" || kind === "project") {
    const text = kind === "team"
      ? (await ctx.db.team.findUnique({ where: { id: row.teamId }, select: { instructions: true } }))?.instructions
      : (await ctx.db.project.findUnique({ where: { id: row.projectId }, select: { instructions: true } }))?.instructions;
    return text ? result(text) : result(undefined, "It has been removed since.");
  }
  if (kind === "server") {
    const text = await ctx.mcp.instructionsOf(row.teamId, row.projectId, label);
    return text ? result(text) : result(undefined, "The tool server is gone, or announces no instructions now.");
  }
  if (kind === "url") {
    const settings = ctx.settings.instructions ?? NO_INSTRUCTION_SETTINGS;
    if (!isUrl(label) || !settings.allowUrls || !settings.paths.includes(label)) return result(undefined, "The server no longer fetches this address.");
    const fetched = await fetchText(label, settings.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
    return "refused" in fetched ? result(undefined, `It could not be read now: ${fetched.refused}.`) : result(fetched.text);
  }
  if (row.workspaceId) {
    try {
      await ctx.workspaces.ready(row.workspaceId);
    } catch (error) {
      // A removed or broken workspace has no files to show; anything else is the server's problem.
      if (!isParleyError(error)) throw error;
      return result(undefined, `The session's files cannot be read: ${error.message}`);
    }
  }
  const file = path.resolve(row.directory, ...label.split("/"));
  const read = await readConfined(row.directory, file, label, (ctx.settings.instructions ?? NO_INSTRUCTION_SETTINGS).maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
  if (read.kind === "missing") return result(undefined, "The file is gone from the workspace.");
  if (read.kind === "refused") return result(undefined, `It cannot be read now: ${read.reason}.`);
  return result(read.text);
}
