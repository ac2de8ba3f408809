import { z } from "zod";
import { Prisma } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import type { Context } from "../services";
import type { Info } from "../session/info";
import type { Tokens } from "../session/message";
import { sessionFromRow } from "../session/rows";
import { CursorBigint, CursorDecimal, CursorTimeText, decodeCursor, encodeCursor } from "../cursor";
import { parse } from "../fn";
import { refuseNul } from "../nul";
import { type Snippet, markTitle, partSnippets } from "../search/search";
import type { Segment } from "../search/snippet";
import { sessionMatches } from "../search/query";
import { WORKSPACE_BADGE_FIELDS, type WorkspaceBadge, workspaceBadge } from "../workspace/scope";

/**
 * The team dashboard: every session of the team, roots and children, filtered,
 * searched and sorted, with totals over the whole filter. Built for 100,000 sessions: the
 * filter is one SQL WHERE used twice — for the page (keyset-paginated on the sort key and
 * id, both descending, so the cursor is an index bound) and for the totals — and each use
 * has an index (prisma/schema.prisma, "dashboard"): one per sort for the page, and a
 * narrow one holding every summed column for the totals of broad filters. Only the page's
 * rows are then read in full. The totals do not depend on the cursor, so they are summed
 * for the first page only; later pages keep the first page's.
 */

export const Sort = z.enum(["updated", "cost", "tokens"]);
export type Sort = z.infer<typeof Sort>;

export const ListInput = z.object({
  projectId: Id.schema("project").optional(),
  authorId: z.string().min(1).max(64).optional(),
  status: z.enum(["idle", "busy", "retry"]).optional(),
  /** Updated at or after this time (epoch ms). */
  updatedFrom: z.number().int().nonnegative().optional(),
  /** Updated at or before this time (epoch ms). */
  updatedTo: z.number().int().nonnegative().optional(),
  /** false (default): not archived; true: archived only; "all": both. */
  archived: z.union([z.boolean(), z.literal("all")]).default(false),
  /**
   * A case-insensitive substring of the title, or the words of a part (message text, tool
   * titles, outputs and paths: server/search).
   */
  search: refuseNul(z.string().trim().max(200), "a search").optional(),
  /** A session id: its children; null: root sessions only; omitted: all. */
  parentId: Id.schema("session").nullable().optional(),
  /** Always descending; ties are broken by id. */
  sort: Sort.default("updated"),
  cursor: z.string().max(300).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListInput = z.input<typeof ListInput>;
type Filter = z.output<typeof ListInput>;

export interface Item {
  session: Info;
  author: { id: string; name: string; email: string };
  project: { id: string; name: string };
  childCount: number;
  /** The session's branch and where its work stands (absent for sessions made before workspaces). */
  workspace?: WorkspaceBadge;
  /** When searching: the title with what matched marked, and the part that matched (if one did). */
  match?: { title: Segment[]; snippet?: Snippet };
}

export interface Totals {
  sessions: number;
  cost: number;
  tokens: Tokens;
  additions: number;
  deletions: number;
}

export interface ListResult {
  items: Item[];
  nextCursor: string | undefined;
  /**
   * Over every session the filter matches, not only this page. Only on the first page
   * (no cursor): they do not depend on the cursor, so a cursor page leaves them out and
   * its reader keeps the first page's (which a re-read of the list renews).
   */
  totals?: Totals;
  /** Rows that could not be read, reported instead of failing the page. */
  corrupt: { id: string; error: string }[];
}


/** The sort key of each sort, and how a cursor's key is turned back into a SQL value. */
const SORT_KEYS: Record<Sort, { column: Prisma.Sql; asText: Prisma.Sql; value: (key: string) => Prisma.Sql }> = {
  updated: {
    column: Prisma.sql`s."timeUpdated"`,
    asText: Prisma.sql`(extract(epoch from s."timeUpdated") * 1000)::bigint::text`,
    value: (key) => Prisma.sql`${new Date(Number(key))}::timestamptz`,
  },
  cost: { column: Prisma.sql`s."cost"`, asText: Prisma.sql`s."cost"::text`, value: (key) => Prisma.sql`${key}::numeric` },
  tokens: { column: Prisma.sql`s."tokensTotal"`, asText: Prisma.sql`s."tokensTotal"::text`, value: (key) => Prisma.sql`${key}::bigint` },
};

/**
 * A cursor names its sort, so a cursor of one sort cannot be replayed against another;
 * its key must be a value of that sort's column (a time a Date holds, a BIGINT, a decimal).
 */
const Cursor = z.union([
  z.tuple([z.literal("updated"), CursorTimeText, Id.schema("session")]),
  z.tuple([z.literal("tokens"), CursorBigint, Id.schema("session")]),
  z.tuple([z.literal("cost"), CursorDecimal, Id.schema("session")]),
]);

function cursorPosition(cursor: string, sort: Sort): { key: string; id: string } {
  const [cursorSort, key, id] = decodeCursor(Cursor, cursor);
  if (cursorSort !== sort) throw ParleyError.invalid(`cursor is for sort "${cursorSort}", not "${sort}"`);
  return { key, id };
}

/** The WHERE of a filter (without the cursor): always inside the acting team. */
export function whereOf(teamId: string, filter: Filter): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`s."teamId" = ${teamId}`];
  if (filter.projectId) conditions.push(Prisma.sql`s."projectId" = ${filter.projectId}`);
  if (filter.authorId) conditions.push(Prisma.sql`s."authorId" = ${filter.authorId}`);
  if (filter.status) conditions.push(Prisma.sql`s."status" = ${filter.status}`);
  if (filter.updatedFrom !== undefined) conditions.push(Prisma.sql`s."timeUpdated" >= ${new Date(filter.updatedFrom)}::timestamptz`);
  if (filter.updatedTo !== undefined) conditions.push(Prisma.sql`s."timeUpdated" <= ${new Date(filter.updatedTo)}::timestamptz`);
  if (filter.archived !== "all") conditions.push(filter.archived ? Prisma.sql`s."timeArchived" IS NOT NULL` : Prisma.sql`s."timeArchived" IS NULL`);
  if (filter.search) conditions.push(sessionMatches(filter.search));
  if (filter.parentId === null) conditions.push(Prisma.sql`s."parentId" IS NULL`);
  else if (filter.parentId !== undefined) conditions.push(Prisma.sql`s."parentId" = ${filter.parentId}`);
  return Prisma.join(conditions, " AND ");
}

/** The page query: ids and sort keys of one page (plus one row to tell whether more follow). */
export function pageQuery(teamId: string, filter: Filter): Prisma.Sql {
  const key = SORT_KEYS[filter.sort];
  let where = whereOf(teamId, filter);
  if (filter.cursor) {
    const after = cursorPosition(filter.cursor, filter.sort);
    where = Prisma.sql`${where} AND (${key.column}, s."id") < (${key.value(after.key)}, ${after.id})`;
  }
  return Prisma.sql`SELECT s."id", ${key.asText} AS "key" FROM "Session" s WHERE ${where}
    ORDER BY ${key.column} DESC, s."id" DESC LIMIT ${filter.limit + 1}`;
}

/** The totals query: sums over every session the filter matches. */
export function totalsQuery(teamId: string, filter: Filter): Prisma.Sql {
  return Prisma.sql`SELECT count(*)::text AS "sessions",
      coalesce(sum(s."cost"), 0)::text AS "cost",
      coalesce(sum(s."tokensInput"), 0)::text AS "input",
      coalesce(sum(s."tokensOutput"), 0)::text AS "output",
      coalesce(sum(s."tokensReasoning"), 0)::text AS "reasoning",
      coalesce(sum(s."tokensCacheRead"), 0)::text AS "cacheRead",
      coalesce(sum(s."tokensCacheWrite"), 0)::text AS "cacheWrite",
      coalesce(sum(s."summaryAdditions"), 0)::text AS "additions",
      coalesce(sum(s."summaryDeletions"), 0)::text AS "deletions"
    FROM "Session" s WHERE ${whereOf(teamId, filter)}`;
}

/** The queries of a filter as the list runs them: the page, and the totals unless a cursor is given. */
export function queries(teamId: string, input: ListInput = {}): { page: Prisma.Sql; totals?: Prisma.Sql } {
  const filter = parse(ListInput, input);
  return { page: pageQuery(teamId, filter), ...(filter.cursor ? {} : { totals: totalsQuery(teamId, filter) }) };
}

const DecimalText = z.string().regex(/^-?\d+(\.\d+)?$/);
const Count = DecimalText.transform(Number);
const PageRow = z.object({ id: Id.schema("session"), key: DecimalText });
const TotalsRow = z.object({
  sessions: Count,
  cost: Count,
  input: Count,
  output: Count,
  reasoning: Count,
  cacheRead: Count,
  cacheWrite: Count,
  additions: Count,
  deletions: Count,
});

function rows<T extends z.ZodType>(schema: T, result: unknown, query: string): z.output<T>[] {
  const parsed = z.array(schema).safeParse(result);
  if (!parsed.success) throw new ParleyError("INTERNAL", `unexpected ${query} rows: ${parsed.error.message}`, { cause: parsed.error });
  return parsed.data;
}

async function totals(ctx: Context, filter: Filter): Promise<Totals> {
  const [row] = rows(TotalsRow, await ctx.db.$queryRaw(totalsQuery(ctx.actor.teamId, filter)), "totals");
  if (!row) throw new ParleyError("INTERNAL", "the totals query returned no row");
  return {
    sessions: row.sessions,
    cost: row.cost,
    tokens: { input: row.input, output: row.output, reasoning: row.reasoning, cache: { read: row.cacheRead, write: row.cacheWrite } },
    additions: row.additions,
    deletions: row.deletions,
  };
}

/** How many children each of these sessions has (those with none are left out). */
async function childCounts(ctx: Context, ids: string[]): Promise<Map<string, number>> {
  // One index probe per id; Prisma's `_count` of the relation would count the children
  // of every session in the table and join them.
  const groups = await ctx.db.session.groupBy({ by: ["parentId"], where: { parentId: { in: ids } }, _count: { _all: true } });
  return new Map(groups.flatMap((group) => (group.parentId ? [[group.parentId, group._count._all] as const] : [])));
}

/** The dashboard's items of these sessions, in this order (with where they matched `search`, when given). */
async function itemsOf(ctx: Context, ids: string[], search: string | undefined): Promise<Pick<ListResult, "items" | "corrupt">> {
  if (!ids.length) return { items: [], corrupt: [] };
  const [full, children, snippets] = await Promise.all([
    ctx.db.session.findMany({
      where: { id: { in: ids }, teamId: ctx.actor.teamId },
      include: {
        share: true,
        author: { select: { id: true, name: true, email: true } },
        project: { select: { id: true, name: true } },
        workspace: { select: WORKSPACE_BADGE_FIELDS },
      },
    }),
    childCounts(ctx, ids),
    search ? partSnippets(ctx, ids, search) : new Map<string, Snippet>(),
  ]);
  const byId = new Map(full.map((row) => [row.id, row]));
  const items: Item[] = [];
  const corrupt: ListResult["corrupt"] = [];
  for (const id of ids) {
    const row = byId.get(id);
    // Deleted between the two reads: it is simply no longer listed.
    if (!row) continue;
    try {
      items.push({
        session: sessionFromRow(row, ctx.settings.publicUrl),
        author: row.author,
        project: row.project,
        childCount: children.get(id) ?? 0,
        ...(row.workspace ? { workspace: workspaceBadge(row.workspace) } : {}),
        ...(search ? { match: matchOf(row.title, search, snippets.get(id)) } : {}),
      });
    } catch (error) {
      corrupt.push({ id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { items, corrupt };
}

/**
 * A page of the team's sessions for the filter; the first page (no cursor) also has the
 * totals over the whole filter.
 */
export async function list(ctx: Context, input: ListInput = {}): Promise<ListResult> {
  const filter = parse(ListInput, input);
  const teamId = ctx.actor.teamId;
  const [pageRows, sums] = await Promise.all([
    ctx.db.$queryRaw(pageQuery(teamId, filter)).then((result) => rows(PageRow, result, "dashboard page")),
    filter.cursor ? undefined : totals(ctx, filter),
  ]);
  const page = pageRows.slice(0, filter.limit);
  const { items, corrupt } = await itemsOf(ctx, page.map((row) => row.id), filter.search);
  const last = page.at(-1);
  return {
    items,
    nextCursor: pageRows.length > filter.limit && last ? encodeCursor([filter.sort, last.key, last.id]) : undefined,
    ...(sums ? { totals: sums } : {}),
    corrupt,
  };
}

/** At most this many sessions are shown as waiting for approval. */
export const MAX_WAITING = 50;

const WaitingRow = z.object({ sessionId: Id.schema("session") });

/**
 * The team's sessions waiting for a person to answer a permission question, the longest
 * waiting first: the dashboard shows them above everything else. One probe of the
 * pending requests' index (team, status).
 */
export async function waiting(ctx: Context): Promise<Pick<ListResult, "items" | "corrupt">> {
  const found = rows(
    WaitingRow,
    await ctx.db.$queryRaw(Prisma.sql`SELECT "sessionId" FROM "PermissionRequest" WHERE "teamId" = ${ctx.actor.teamId} AND "status" = 'pending'
      GROUP BY "sessionId" ORDER BY min("createdAt"), "sessionId" LIMIT ${MAX_WAITING}`),
    "waiting sessions",
  );
  return itemsOf(ctx, found.map((row) => row.sessionId), undefined);
}

function matchOf(title: string, search: string, snippet: Snippet | undefined): NonNullable<Item["match"]> {
  return { title: markTitle(title, search), ...(snippet ? { snippet } : {}) };
}

export interface Author {
  id: string;
  name: string;
  email: string;
}

/** The people a dashboard can filter by: the team's members, by name. */
export async function authors(ctx: Pick<Context, "db" | "actor">): Promise<Author[]> {
  const rows = await ctx.db.membership.findMany({
    where: { teamId: ctx.actor.teamId },
    select: { user: { select: { id: true, name: true, email: true } } },
    orderBy: [{ user: { name: "asc" } }, { user: { email: "asc" } }],
  });
  return rows.map((row) => row.user);
}
