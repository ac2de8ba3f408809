import { z } from "zod";
import { Prisma } from "../db/client";
import { CursorTimeText, decodeCursor, encodeCursor } from "../cursor";
import { ParleyError } from "../errors";
import { parse } from "../fn";
import * as Id from "../id";
import { refuseNul } from "../nul";
import type { Context } from "../services";
import type { Info } from "../session/info";
import type { Author } from "../session/message";
import { sessionFromRow } from "../session/rows";
import { WORKSPACE_BADGE_FIELDS, type WorkspaceBadge, workspaceBadge } from "../workspace/scope";
import { containsPattern, tsQuery, words } from "./query";
import { type Segment, excerpt, hasWord, mark, markSubstring } from "./snippet";

/**
 * Full-text search of a team's sessions: by title (substring) and by the words of their
 * parts — message text, tool titles, outputs and errors, and the paths parts name (the
 * generated column `Part.search`, GIN-indexed). Visible exactly as the session list is:
 * the acting member's team only. Results come newest activity first, keyset-paginated,
 * each with a highlighted snippet of the part that matched.
 */

export const SearchInput = z.object({
  query: refuseNul(z.string().trim().min(1).max(200), "a search"),
  projectId: Id.schema("project").optional(),
  /** A session id for its children; null for root sessions only; omitted for all. */
  parentId: Id.schema("session").nullable().optional(),
  /** false (default): not archived; true: archived only; "all": both. */
  archived: z.union([z.boolean(), z.literal("all")]).default(false),
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(50).default(20),
});
export type SearchInput = z.input<typeof SearchInput>;
type Filter = z.output<typeof SearchInput>;

/** Where a snippet comes from: the title, or the kind of part that matched. */
export type SnippetKind = "title" | "text" | "tool" | "file" | "patch";

export interface Snippet {
  kind: SnippetKind;
  /** A tool's title or a file's path, when the part has one. */
  label?: Segment[];
  segments: Segment[];
}

export interface Hit {
  session: Info;
  author: Author;
  project: { id: string; name: string };
  workspace?: WorkspaceBadge;
  /** The title with what matched marked. */
  title: Segment[];
  snippet: Snippet;
}

export interface SearchResult {
  items: Hit[];
  nextCursor: string | undefined;
  /** Rows that could not be read, reported instead of failing the page. */
  corrupt: { id: string; error: string }[];
}

/** A title with the query marked: as a substring when it holds it, else word by word. */
export function markTitle(title: string, query: string): Segment[] {
  return title.toLowerCase().includes(query.toLowerCase()) ? markSubstring(title, query) : mark(title, words(query));
}

const Cursor = z.tuple([CursorTimeText, Id.schema("session")]);
const HitRow = z.object({ id: Id.schema("session"), key: z.string() });
const PartRow = z.object({ sessionId: z.string(), type: z.string(), label: z.string().nullable(), body: z.string().nullable() });

function whereOf(teamId: string, filter: Filter): Prisma.Sql {
  const conditions = [Prisma.sql`s."teamId" = ${teamId}`];
  if (filter.projectId) conditions.push(Prisma.sql`s."projectId" = ${filter.projectId}`);
  if (filter.archived !== "all") conditions.push(filter.archived ? Prisma.sql`s."timeArchived" IS NOT NULL` : Prisma.sql`s."timeArchived" IS NULL`);
  if (filter.parentId === null) conditions.push(Prisma.sql`s."parentId" IS NULL`);
  else if (filter.parentId !== undefined) conditions.push(Prisma.sql`s."parentId" = ${filter.parentId}`);
  if (filter.cursor) {
    const [key, id] = decodeCursor(Cursor, filter.cursor);
    conditions.push(Prisma.sql`(s."timeUpdated", s."id") < (${new Date(Number(key))}::timestamptz, ${id})`);
  }
  return Prisma.join(conditions, " AND ");
}

/**
 * How many rows a way of matching may find and still be "few" — parts across every team
 * (a part has no team column; estimated), titles within the team (counted): its
 * matches are then found first (by the GIN index of the parts' words, or of the team's
 * titles) and their sessions sorted; past it, sessions are walked newest first instead
 * and each is probed until the page is full (quick when matches are many, slow when they
 * are few: the planner cannot tell the two apart from a word's statistics).
 */
export const FEW_MATCHES = 5_000;

/** Whether each way of matching finds few rows (see FEW_MATCHES). */
export interface Plan {
  fewParts: boolean;
  fewTitles: boolean;
}

/**
 * How many parts the words match, as PostgreSQL estimates it from its statistics of the
 * stored words (`EXPLAIN`: planning only, no row read). A word frequent enough to matter
 * is in those statistics and estimated closely; a rare one is not, and is estimated low —
 * "few" either way, which is what it is. Counting instead (a LIMIT over the index) cost a
 * frequent word a bitmap of all its parts whenever the planner chose the index for it.
 */
function partsEstimate(ts: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM "Part" p WHERE p."search" @@ (${ts})`;
}

/** The team's titles that hold the query, counted up to FEW_MATCHES (the team's trigram index: Session_team_title_trgm_idx). */
export function titlesCount(teamId: string, filter: Pick<Filter, "query">): Prisma.Sql {
  return Prisma.sql`SELECT (SELECT count(*) FROM (SELECT 1 FROM "Session" s WHERE s."teamId" = ${teamId} AND s."title" ILIKE ${containsPattern(filter.query)} LIMIT ${FEW_MATCHES}) x)::int AS "titles"`;
}

const Explained = z.array(z.object({ "QUERY PLAN": z.unknown() }));
const PlanJson = z.array(z.object({ Plan: z.object({ "Plan Rows": z.number() }) }));
const TitlesRow = z.array(z.object({ titles: z.number().int() }));

export async function choosePlan(ctx: Pick<Context, "db">, teamId: string, filter: Filter): Promise<Plan> {
  const ts = tsQuery(filter.query);
  const [titles, explained] = await Promise.all([
    ctx.db.$queryRaw(titlesCount(teamId, filter)).then((rows) => TitlesRow.parse(rows)[0]?.titles ?? 0),
    ts ? ctx.db.$queryRaw(partsEstimate(ts)).then((rows) => Explained.parse(rows)[0]?.["QUERY PLAN"]) : undefined,
  ]);
  const plan = explained === undefined ? undefined : PlanJson.parse(typeof explained === "string" ? JSON.parse(explained) : explained);
  const parts = plan?.[0]?.Plan["Plan Rows"] ?? 0;
  return { fewParts: parts < FEW_MATCHES, fewTitles: titles < FEW_MATCHES };
}

/**
 * The page's session ids. Each way of matching is its own branch with its own ORDER BY
 * and LIMIT, in the form `plan` chose for it: few matches are found first (a materialized
 * list of their session ids, joined to the team's sessions), many are found by walking
 * the team's sessions newest first.
 */
export function pageQuery(teamId: string, filter: Filter, chosen: Plan): Prisma.Sql {
  const where = whereOf(teamId, filter);
  const take = filter.limit + 1;
  const order = Prisma.sql`ORDER BY s."timeUpdated" DESC, s."id" DESC LIMIT ${take}`;
  const pattern = containsPattern(filter.query);
  const ts = tsQuery(filter.query);
  const ctes: Prisma.Sql[] = [];
  if (chosen.fewTitles) ctes.push(Prisma.sql`titled AS MATERIALIZED (SELECT s."id" FROM "Session" s WHERE s."teamId" = ${teamId} AND s."title" ILIKE ${pattern})`);
  if (ts && chosen.fewParts) ctes.push(Prisma.sql`matched AS MATERIALIZED (SELECT DISTINCT p."sessionId" AS "id" FROM "Part" p WHERE p."search" @@ (${ts}))`);
  // Each match's session is looked up by its key (a LATERAL with LIMIT 1 is never turned
  // into a join): the planner cannot know how few the matches are, and would scan the
  // team's sessions to join them.
  const sessionOf = (cte: string) =>
    Prisma.sql`(SELECT s."id", s."timeUpdated" FROM ${Prisma.raw(cte)} m CROSS JOIN LATERAL (SELECT s."id", s."timeUpdated" FROM "Session" s WHERE s."id" = m."id" AND ${where} LIMIT 1) s ${order})`;
  const byTitle = chosen.fewTitles
    ? sessionOf("titled")
    : Prisma.sql`(SELECT s."id", s."timeUpdated" FROM "Session" s WHERE ${where} AND s."title" ILIKE ${pattern} ${order})`;
  const byParts = !ts
    ? undefined
    : chosen.fewParts
      ? sessionOf("matched")
      : Prisma.sql`(SELECT s."id", s."timeUpdated" FROM "Session" s WHERE ${where}
          AND EXISTS (SELECT 1 FROM "Part" p WHERE p."sessionId" = s."id" AND p."search" @@ (${ts})) ${order})`;
  const branches = byParts ? Prisma.sql`${byTitle} UNION ${byParts}` : byTitle;
  const with_ = ctes.length ? Prisma.sql`WITH ${Prisma.join(ctes, ", ")} ` : Prisma.empty;
  return Prisma.sql`${with_}SELECT h."id", (extract(epoch from h."timeUpdated") * 1000)::bigint::text AS "key"
    FROM (${branches}) h ORDER BY h."timeUpdated" DESC, h."id" DESC LIMIT ${take}`;
}

/**
 * For each session, its first part that matches (what it says and, for a tool or a file,
 * its title or path); the text is capped as the stored words are.
 */
function partsQuery(ids: string[], ts: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT DISTINCT ON (p."sessionId") p."sessionId", p."type",
      coalesce(p."data"->'state'->>'title', p."data"->'source'->>'path', p."data"->>'filename') AS "label",
      left(coalesce(p."data"->>'text', p."data"->'state'->>'output', p."data"->'state'->>'error',
        (SELECT string_agg(f, ' ') FROM jsonb_array_elements_text(CASE WHEN p."type" = 'patch' THEN p."data"->'files' END) f),
        p."data"->'state'->'input'->>'command', p."data"->'state'->'input'->>'filePath', p."data"->'state'->'input'->>'path'), 100000) AS "body"
    FROM "Part" p WHERE p."sessionId" IN (${Prisma.join(ids)}) AND p."search" @@ (${ts})
    ORDER BY p."sessionId", p."id"`;
}

function kindOf(type: string): SnippetKind {
  return type === "tool" || type === "file" || type === "patch" ? type : "text";
}

/** Snippets of the parts that matched, by session id. */
export async function partSnippets(ctx: Pick<Context, "db">, ids: string[], query: string): Promise<Map<string, Snippet>> {
  const ts = tsQuery(query);
  if (!ids.length || !ts) return new Map();
  const parsed = z.array(PartRow).safeParse(await ctx.db.$queryRaw(partsQuery(ids, ts)));
  if (!parsed.success) throw new ParleyError("INTERNAL", `unexpected search part rows: ${parsed.error.message}`, { cause: parsed.error });
  const marked = words(query);
  return new Map(
    parsed.data.map((row) => {
      const body = row.body ?? "";
      const label = row.label ?? undefined;
      // A match only in the label (a path, a tool's title) shows the label; otherwise the body around the match.
      const segments = label !== undefined && !hasWord(body, marked) && hasWord(label, marked) ? excerpt(label, marked) : excerpt(body, marked);
      const snippet: Snippet = { kind: kindOf(row.type), segments, ...(label !== undefined ? { label: excerpt(label, marked) } : {}) };
      return [row.sessionId, snippet];
    }),
  );
}

/** One page of the team's sessions matching the query, newest activity first. */
export async function sessions(ctx: Context, input: SearchInput): Promise<SearchResult> {
  const filter = parse(SearchInput, input);
  const teamId = ctx.actor.teamId;
  const parsed = z.array(HitRow).safeParse(await ctx.db.$queryRaw(pageQuery(teamId, filter, await choosePlan(ctx, teamId, filter))));
  if (!parsed.success) throw new ParleyError("INTERNAL", `unexpected search rows: ${parsed.error.message}`, { cause: parsed.error });
  const page = parsed.data.slice(0, filter.limit);
  const ids = page.map((row) => row.id);
  const [rows, snippets] = await Promise.all([
    ids.length
      ? ctx.db.session.findMany({
          where: { id: { in: ids }, teamId },
          include: {
            share: true,
            author: { select: { id: true, name: true } },
            project: { select: { id: true, name: true } },
            workspace: { select: WORKSPACE_BADGE_FIELDS },
          },
        })
      : [],
    partSnippets(ctx, ids, filter.query),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const items: Hit[] = [];
  const corrupt: SearchResult["corrupt"] = [];
  for (const { id } of page) {
    const row = byId.get(id);
    // Deleted between the two reads: no longer found.
    if (!row) continue;
    const title = markTitle(row.title, filter.query);
    try {
      items.push({
        session: sessionFromRow(row, ctx.settings.publicUrl),
        author: row.author,
        project: row.project,
        ...(row.workspace ? { workspace: workspaceBadge(row.workspace) } : {}),
        title,
        snippet: snippets.get(id) ?? { kind: "title", segments: title },
      });
    } catch (error) {
      corrupt.push({ id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  const last = page.at(-1);
  return { items, corrupt, nextCursor: parsed.data.length > filter.limit && last ? encodeCursor([last.key, last.id]) : undefined };
}
