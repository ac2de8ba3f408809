import { Prisma } from "../db/client";
import { z } from "zod";
import { fn } from "../fn";
import type { Context } from "../services";
import type { Status } from "../session/info";
import { sessionFromRow } from "../session/rows";
import { WORKSPACE_BADGE_FIELDS, type WorkspaceBadge, workspaceBadge } from "../workspace/scope";

/**
 * The session sidebar (issue 33, point 2): the team's most recently active root sessions,
 * grouped by project, each with its descendants nested under it (subagents' child
 * sessions, never rows of their own), its run status, whether it waits for someone to
 * answer a permission question, whether its last reply failed, and its branch. A few
 * queries per read, bounded by `limit` roots and MAX_NODES sessions in all.
 */

/** How deep children are followed below a root (subagents of subagents…). */
export const MAX_DEPTH = 4;
/** Sessions read in all, roots included: a root with hundreds of children shows the newest. */
export const MAX_NODES = 300;

export const RecentInput = z.object({ limit: z.number().int().min(1).max(100).default(30) });
export type RecentInput = z.input<typeof RecentInput>;

export interface SidebarSession {
  id: string;
  title: string;
  parentId?: string;
  projectId: string;
  status: Status;
  /** When it last changed (ms): unread markers compare it with when the member last saw it. */
  updated: number;
  author: { id: string; name: string };
  /** Its branch (children share their root's); none for sessions made before workspaces. */
  workspace?: WorkspaceBadge;
  /** A permission question of this session waits for an answer. */
  waiting: boolean;
  /** Its latest reply ended with an error (not a stop). */
  failed: boolean;
  children: SidebarSession[];
}

export interface SidebarProject {
  id: string;
  name: string;
  sessions: SidebarSession[];
}

export interface Sidebar {
  projects: SidebarProject[];
}

const SELECT = {
  project: { select: { id: true, name: true } },
  author: { select: { id: true, name: true } },
  workspace: { select: WORKSPACE_BADGE_FIELDS },
} as const;

type Row = Prisma.SessionGetPayload<{ include: typeof SELECT }>;

export const recent = fn(RecentInput, async (ctx: Context, input): Promise<Sidebar> => {
  const teamId = ctx.actor.teamId;
  const roots = await ctx.db.session.findMany({
    where: { teamId, parentId: null, timeArchived: null },
    include: SELECT,
    orderBy: [{ timeUpdated: "desc" }, { id: "asc" }],
    take: input.limit,
  });
  const rows: Row[] = [...roots];
  let frontier = roots.map((row) => row.id);
  for (let depth = 0; depth < MAX_DEPTH && frontier.length > 0 && rows.length < MAX_NODES; depth++) {
    const children = await ctx.db.session.findMany({
      where: { teamId, parentId: { in: frontier }, timeArchived: null },
      include: SELECT,
      orderBy: { id: "asc" },
      take: MAX_NODES - rows.length,
    });
    rows.push(...children);
    frontier = children.map((row) => row.id);
  }
  const ids = rows.map((row) => row.id);
  const [waiting, failed] = await Promise.all([waitingOf(ctx, ids), failedOf(ctx, ids)]);
  return { projects: group(roots, rows, (row) => node(row, waiting.has(row.id), failed.has(row.id))) };
});

/** The sessions among `ids` with a pending permission question. */
async function waitingOf(ctx: Context, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await ctx.db.permissionRequest.findMany({
    where: { teamId: ctx.actor.teamId, status: "pending", sessionId: { in: ids } },
    select: { sessionId: true },
    distinct: ["sessionId"],
  });
  return new Set(rows.map((row) => row.sessionId));
}

/** The sessions among `ids` whose latest assistant message carries an error other than an abort (one index probe each). */
async function failedOf(ctx: Context, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await ctx.db.$queryRaw<{ id: string }[]>(Prisma.sql`
    SELECT s.id FROM unnest(${ids}::text[]) AS s(id)
    CROSS JOIN LATERAL (
      SELECT m.data->'error'->>'name' AS error FROM "Message" m
      WHERE m."sessionId" = s.id AND m.role = 'assistant' ORDER BY m.id DESC LIMIT 1
    ) last
    WHERE last.error IS NOT NULL AND last.error <> 'AbortedError'`);
  return new Set(rows.map((row) => row.id));
}

function node(row: Row, waiting: boolean, failed: boolean): SidebarSession {
  const info = sessionFromRow(row);
  return {
    id: info.id,
    title: info.title,
    ...(info.parentId ? { parentId: info.parentId } : {}),
    projectId: info.projectId,
    status: info.status ?? { type: "idle" },
    updated: info.time.updated,
    author: row.author,
    ...(row.workspace ? { workspace: workspaceBadge(row.workspace) } : {}),
    waiting,
    failed,
    children: [],
  };
}

/** Roots in their order, each project once (in the order of its most recent root), children nested under their parents. */
function group(roots: Row[], rows: Row[], make: (row: Row) => SidebarSession): SidebarProject[] {
  const nodes = new Map(rows.map((row) => [row.id, make(row)]));
  for (const row of rows) {
    const parent = row.parentId ? nodes.get(row.parentId) : undefined;
    const child = nodes.get(row.id);
    if (parent && child) parent.children.push(child);
  }
  const projects = new Map<string, SidebarProject>();
  for (const root of roots) {
    const session = nodes.get(root.id);
    if (!session) continue;
    let project = projects.get(root.project.id);
    if (!project) {
      project = { id: root.project.id, name: root.project.name, sessions: [] };
      projects.set(root.project.id, project);
    }
    project.sessions.push(session);
  }
  return [...projects.values()];
}
