import { randomInt } from "node:crypto";
import { z } from "zod";
import * as Id from "../id";
import { refuseNul } from "../nul";
import type { Prisma } from "../db/client";
import { ParleyError } from "../errors";
import { CursorTime, decodeCursor, encodeCursor } from "../cursor";
import { parse } from "../fn";
import { checkSessionRules } from "../permission/policy";
import { Ruleset } from "../permission/schema";
import type { Context } from "../services";
import { removeOutputs } from "../tool/truncate";
import { projectRow, sessionRow } from "./access";
import * as Event from "./events";
import { Info, Title, defaultTitle } from "./info";
import { type Author, ModelRef } from "./message";
import type { Session as SessionRow } from "../db/generated/client";
import { json, sessionFromRow } from "./rows";
import { AbortRequested, Runners } from "./runner";
import { requireAuthorOrAdmin } from "./ownership";
import * as Share from "./share";
import * as Store from "./store";
import { WORKSPACE_BADGE_FIELDS, type WorkspaceBadge, workspaceBadge } from "../workspace/scope";

export const VERSION = "0.1.0";

export const CreateInput = z.object({
  projectId: Id.schema("project"),
  parentId: Id.schema("session").optional(),
  title: Title.optional(),
  agent: refuseNul(z.string().min(1).max(100), "an agent name").optional(),
  model: ModelRef.optional(),
  permission: Ruleset.optional(),
  /** The branch a root session's workspace starts from (default: the project's default branch). */
  branch: refuseNul(z.string().trim().min(1).max(255), "a branch name").optional(),
});
export type CreateInput = z.input<typeof CreateInput>;

const ADJECTIVES = ["brave", "calm", "clever", "eager", "gentle", "happy", "jolly", "keen", "lucky", "mighty", "nimble", "proud", "quiet", "swift", "witty", "bright"];
const NOUNS = ["badger", "comet", "falcon", "garden", "harbor", "island", "lantern", "meadow", "otter", "pioneer", "river", "squid", "tiger", "voyager", "willow", "wizard"];
function slug(): string {
  return `${ADJECTIVES[randomInt(ADJECTIVES.length)]}-${NOUNS[randomInt(NOUNS.length)]}-${randomInt(1000)}`;
}

function publishInfo(ctx: Context, def: typeof Event.Created | typeof Event.Deleted, info: Info) {
  ctx.bus.publish(def, { info }, { teamId: info.teamId, sessionId: info.id });
}

export async function create(ctx: Context, input: CreateInput): Promise<Info> {
  const data = parse(CreateInput, input);
  const project = await projectRow(ctx, data.projectId);
  await checkSessionRules(ctx, data.permission);
  if (data.agent !== undefined) ctx.agents.choose(data.agent);
  const parent = data.parentId ? await sessionRow(ctx, data.parentId) : undefined;
  if (parent && parent.projectId !== project.id) throw ParleyError.invalid("a child session must be in its parent's project");
  if (parent) {
    if (data.branch !== undefined) throw ParleyError.invalid("a child session works in its parent's workspace: it takes no branch");
    return insert(ctx, { ...data, projectId: project.id, directory: parent.directory, workspaceId: parent.workspaceId, parentId: parent.id });
  }
  if (data.branch !== undefined) await ctx.workspaces.checkBranch(project, data.branch);
  return insert(ctx, { ...data, projectId: project.id, directory: "", workspace: { project, ...(data.branch ? { baseBranch: data.branch } : {}) } });
}

/** A subagent's child session, as its parent's runner asks for it (server/session/subagent.ts). */
export interface ChildInput {
  /** The parent as its runner read it: its project, folder and rules are the child's. */
  parent: { id: string; projectId: string; directory: string; workspaceId?: string; permission?: Ruleset };
  title: string;
  agent: string;
  model?: ModelRef;
}

/**
 * A child session made by its parent's runner: the parent was read (and its rules
 * checked when they were set) already, so nothing is read again. The actor is the
 * parent's author; the agent must exist.
 */
export async function createChild(ctx: Context, input: ChildInput): Promise<Info> {
  ctx.agents.choose(input.agent);
  const { parent } = input;
  return insert(ctx, {
    projectId: parent.projectId,
    directory: parent.directory,
    workspaceId: parent.workspaceId ?? null,
    parentId: parent.id,
    title: input.title,
    agent: input.agent,
    ...(input.model ? { model: input.model } : {}),
    ...(parent.permission ? { permission: parent.permission } : {}),
  });
}

interface NewSession {
  projectId: string;
  /** The session's folder: its parent's; for a root session, its new workspace's (`workspace`). */
  directory: string;
  workspaceId?: string | null;
  /** A root session: its workspace is planned with it (nothing is made on disk yet). */
  workspace?: { project: { id: string; defaultBranch: string | null }; baseBranch?: string };
  parentId?: string | undefined;
  title?: string | undefined;
  agent?: string | undefined;
  model?: ModelRef | undefined;
  permission?: Ruleset | undefined;
}

/** Write a new session row and announce it (a root session is shared at once when sharing is automatic). */
async function insert(ctx: Context, data: NewSession): Promise<Info> {
  const time = new Date(ctx.clock.now());
  const title = data.title ?? defaultTitle(data.parentId !== undefined, time.getTime());
  const permission = data.permission === undefined ? null : JSON.stringify(data.permission);
  const sessionSlug = slug();
  // One plain statement (Prisma's create costs about twice the CPU): every new session.
  const write = async (db: Prisma.TransactionClient, directory: string, workspaceId: string | null) => {
    const [row] = await db.$queryRaw<SessionRow[]>`
      INSERT INTO "Session" (id, "teamId", "projectId", directory, "workspaceId", "parentId", title, slug, version, "authorId", agent, "modelProviderId", "modelId", permission, "timeCreated", "timeUpdated")
      VALUES (${Id.descending("session")}, ${ctx.actor.teamId}, ${data.projectId}, ${directory}, ${workspaceId}, ${data.parentId ?? null}, ${title}, ${sessionSlug}, ${VERSION},
              ${ctx.actor.userId}, ${data.agent ?? null}, ${data.model?.providerId ?? null}, ${data.model?.modelId ?? null}, ${permission}::jsonb, ${time}, ${time})
      RETURNING *`;
    if (!row) throw new Error("the new session was not returned");
    return row;
  };
  const planned = data.workspace;
  let row: SessionRow;
  if (planned) {
    // A root session and its workspace in one statement: the workspace row only while the
    // project is under its cap of live workspaces, the session only with it.
    const ws = ctx.workspaces.planned({ teamId: ctx.actor.teamId, project: planned.project, slug: sessionSlug, ...(planned.baseBranch ? { baseBranch: planned.baseBranch } : {}) });
    const [made] = await ctx.db.$queryRaw<SessionRow[]>`
      WITH live AS (SELECT count(*)::int AS n FROM "Workspace" WHERE "projectId" = ${ws.projectId} AND state <> 'removed'),
      ws AS (
        INSERT INTO "Workspace" (id, "teamId", "projectId", directory, branch, "baseBranch", "createdAt", "updatedAt")
        SELECT ${ws.id}, ${ws.teamId}, ${ws.projectId}, ${ws.directory}, ${ws.branch}, ${ws.baseBranch}, ${time}, ${time} FROM live WHERE live.n < ${ctx.workspaces.maxPerProject}
        RETURNING id, directory
      )
      INSERT INTO "Session" (id, "teamId", "projectId", directory, "workspaceId", "parentId", title, slug, version, "authorId", agent, "modelProviderId", "modelId", permission, "timeCreated", "timeUpdated")
      SELECT ${Id.descending("session")}, ${ctx.actor.teamId}, ${data.projectId}, ws.directory, ws.id, NULL, ${title}, ${sessionSlug}, ${VERSION},
             ${ctx.actor.userId}, ${data.agent ?? null}, ${data.model?.providerId ?? null}, ${data.model?.modelId ?? null}, ${permission}::jsonb, ${time}, ${time}
      FROM ws
      RETURNING *`;
    if (!made) throw await ctx.workspaces.capError(ws.projectId);
    row = made;
  } else row = await write(ctx.db, data.directory, data.workspaceId ?? null);
  let info = sessionFromRow({ ...row, share: null }, ctx.settings.publicUrl);
  publishInfo(ctx, Event.Created, info);
  if (data.parentId === undefined && ctx.settings.share === "auto") info = await Share.share(ctx, info.id);
  else Store.publishSession(ctx, info);
  return info;
}

export async function get(ctx: Context, sessionId: string): Promise<Info> {
  return sessionFromRow(await sessionRow(ctx, sessionId), ctx.settings.publicUrl);
}

export const ListInput = z.object({
  projectId: Id.schema("project").optional(),
  /** A session id for its children; null for root sessions only; omitted for all. */
  parentId: Id.schema("session").nullable().optional(),
  authorId: z.string().max(64).optional(),
  /** true: archived only; false (default): not archived; "all": both. */
  archived: z.union([z.boolean(), z.literal("all")]).default(false),
  /** A case-insensitive substring of the title; full-text search of contents is `search.sessions` (server/search). */
  search: refuseNul(z.string().trim().max(200), "a search").optional(),
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(1000).default(50),
});
export type ListInput = z.input<typeof ListInput>;

export interface Page<T> {
  items: T[];
  nextCursor: string | undefined;
  /** Rows that could not be read, reported instead of failing the whole page. */
  corrupt: { id: string; error: string }[];
}

const Cursor = z.tuple([CursorTime, Id.schema("session")]);

/** A listed session: its author, its project, how many child sessions it has, and its branch and where its work stands (sessions made before workspaces have none). */
export type Listed = Info & { author: Author; project: { id: string; name: string }; children: number; workspace?: WorkspaceBadge };

export async function list(ctx: Context, input: ListInput = {}): Promise<Page<Listed>> {
  const filter = parse(ListInput, input);
  const where: Prisma.SessionWhereInput = { teamId: ctx.actor.teamId };
  if (filter.projectId) where.projectId = filter.projectId;
  if (filter.parentId !== undefined) where.parentId = filter.parentId;
  if (filter.authorId) where.authorId = filter.authorId;
  if (filter.archived !== "all") where.timeArchived = filter.archived ? { not: null } : null;
  // Prisma passes `contains` to ILIKE unescaped: make % _ \ match themselves.
  if (filter.search) where.title = { contains: filter.search.replace(/[\\%_]/g, "\\$&"), mode: "insensitive" };
  if (filter.cursor) {
    const [updated, id] = decodeCursor(Cursor, filter.cursor);
    where.OR = [{ timeUpdated: { lt: new Date(updated) } }, { timeUpdated: new Date(updated), id: { gt: id } }];
  }
  const rows = await ctx.db.session.findMany({
    where,
    include: {
      share: true,
      author: { select: { id: true, name: true } },
      project: { select: { id: true, name: true } },
      workspace: { select: WORKSPACE_BADGE_FIELDS },
      _count: { select: { children: true } },
    },
    orderBy: [{ timeUpdated: "desc" }, { id: "asc" }],
    take: filter.limit + 1,
  });
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  const items: Listed[] = [];
  const corrupt: Page<Listed>["corrupt"] = [];
  for (const row of page) {
    try {
      items.push({ ...sessionFromRow(row, ctx.settings.publicUrl), author: row.author, project: row.project, children: row._count.children, ...(row.workspace ? { workspace: workspaceBadge(row.workspace) } : {}) });
    } catch (error) {
      corrupt.push({ id: row.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { items, corrupt, nextCursor: rows.length > filter.limit && last ? encodeCursor([last.timeUpdated.getTime(), last.id]) : undefined };
}

export async function children(ctx: Context, sessionId: string): Promise<Info[]> {
  await sessionRow(ctx, sessionId);
  const rows = await ctx.db.session.findMany({
    where: { parentId: sessionId, teamId: ctx.actor.teamId },
    include: { share: true },
    orderBy: { id: "desc" },
  });
  return rows.map((row) => sessionFromRow(row, ctx.settings.publicUrl));
}

export const UpdateInput = z
  .object({
    title: Title.optional(),
    archived: z.boolean().optional(),
    permission: Ruleset.nullable().optional(),
  })
  .strict();
export type UpdateInput = z.input<typeof UpdateInput>;

export async function update(ctx: Context, sessionId: string, input: UpdateInput): Promise<Info> {
  const patch = parse(UpdateInput, input);
  const row = await sessionRow(ctx, sessionId);
  if (patch.archived !== undefined) await requireAuthorOrAdmin(ctx, row, patch.archived ? "archive" : "unarchive");
  await checkSessionRules(ctx, patch.permission);
  const time = new Date(ctx.clock.now());
  const data: Prisma.SessionUpdateInput = { timeUpdated: time };
  if (patch.title !== undefined) data.title = patch.title;
  if (patch.archived !== undefined) data.timeArchived = patch.archived ? (row.timeArchived ?? time) : null;
  if (patch.permission !== undefined) data.permission = json(patch.permission);
  return Store.updateSession(ctx, row.id, data);
}

export async function touch(ctx: Context, sessionId: string): Promise<Info> {
  const row = await sessionRow(ctx, sessionId);
  return Store.touchSession(ctx, row.id, ctx.clock.now());
}

/**
 * Delete a session with its children (recursively, deepest first), its share, messages
 * and parts. A running session or child is stopped first, on whichever instance runs it
 * (the abort of Prompt.abort), and the deletion waits until none runs, so nothing writes
 * to it afterwards; when one does not stop within STOP_WAIT_MS the deletion is refused
 * (BUSY) and can be asked again. Every deleted session publishes `session.deleted`. A
 * failure is raised, leaving what was not yet deleted in place.
 */
export async function remove(ctx: Context, sessionId: string): Promise<void> {
  const row = await sessionRow(ctx, sessionId);
  await requireAuthorOrAdmin(ctx, row, "delete");
  await stopTree(ctx, row.teamId, await treeOf(ctx, row.id));
  await removeTree(ctx, row);
  // A root session's working tree goes with it (its children shared it); its branch stays when it holds work.
  if (row.parentId === null && row.workspaceId) await ctx.workspaces.remove(row.workspaceId);
}

/** How long a deletion waits for the runners of the session and its children to stop. */
export const STOP_WAIT_MS = 15_000;

/** A session and all its descendants (one statement). */
export async function treeOf(ctx: Pick<Context, "db">, sessionId: string): Promise<string[]> {
  const rows = await ctx.db.$queryRaw<Array<{ id: string }>>`
    WITH RECURSIVE down(id, depth) AS (
      SELECT id, 0 FROM "Session" WHERE id = ${sessionId}
      UNION ALL
      SELECT s.id, down.depth + 1 FROM "Session" s JOIN down ON s."parentId" = down.id WHERE down.depth < 100
    )
    SELECT id FROM down`;
  return rows.map((r) => r.id);
}

/** Stop every runner of these sessions, wherever it runs, and wait until none runs. */
async function stopTree(ctx: Context, teamId: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    ctx.runners.get(id)?.abort.abort("The session was deleted");
    ctx.bus.publish(AbortRequested, { sessionId: id }, { teamId, sessionId: id });
  }
  const deadline = Date.now() + STOP_WAIT_MS;
  for (;;) {
    const running: string[] = [];
    for (const id of ids) if (await Runners.busy(ctx.lock, ctx.runners, id)) running.push(id);
    const [first] = running;
    if (first === undefined) return;
    if (Date.now() > deadline) {
      throw new ParleyError("BUSY", "the session is still stopping: delete it again in a moment", { details: { sessionId: first } });
    }
    // Its runner (here or on another instance) is looked at again shortly.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function removeTree(ctx: Context, row: Awaited<ReturnType<typeof sessionRow>>): Promise<void> {
  // A session whose JSON fields are corrupt can still be deleted: report it without them.
  let info: Info;
  try {
    info = sessionFromRow(row, ctx.settings.publicUrl);
  } catch {
    info = sessionFromRow({ ...row, permission: null, revert: null, summaryDiffs: null, statusData: null }, ctx.settings.publicUrl);
  }
  const kids = await ctx.db.session.findMany({ where: { parentId: row.id }, select: { id: true } });
  for (const kid of kids) await removeTree(ctx, await sessionRow(ctx, kid.id));
  await ctx.db.$transaction([
    ...Store.deleteContents(ctx.db, row.id),
    ctx.db.share.deleteMany({ where: { sessionId: row.id } }),
    ctx.db.todo.deleteMany({ where: { sessionId: row.id } }),
    ctx.db.session.delete({ where: { id: row.id } }),
  ]);
  publishInfo(ctx, Event.Deleted, info);
  // Its saved tool outputs go with it (else the sweep removes them after 7 days).
  await removeOutputs(ctx.settings.dataDir, row.teamId, row.id);
}
