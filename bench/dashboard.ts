/**
 * Benchmark of the team dashboard and the share page .
 *
 *   npm run bench:dashboard
 *
 * Uses DATABASE_URL when set (seeding its own three teams and removing them afterwards),
 * otherwise an embedded PostgreSQL in a temporary directory. Seeds 100,000 sessions
 * across 3 teams (50% / 30% / 20%) in bulk SQL — every fifth a child session, varied
 * projects, authors, statuses, costs, tokens, changed lines, titles and update times,
 * 10% archived — plus 10 messages with a part each for 2,000 of them, and one shared
 * session with 5,000 messages (27,500 parts) and child sessions. Then VACUUM ANALYZE.
 *
 * Measured in this process (server time, no HTTP), on the largest team (50,000
 * sessions): `Dashboard.list` — page, totals over the whole filter, and the page's rows
 * with authors, projects and child counts — for the default view, every filter, title
 * search, every sort and cursor pages (which have no totals: the first page's hold for
 * them); p50/p95 against a p95 target of 100 ms. Then the
 * share page's server-side load (`ShareView.page`: resolve the link, newest page of
 * messages with their parts, child sessions) against 300 ms, and the share page's
 * server-side render of its first page (bench/share-render.ts): in process (load, props
 * payload, React render of the page's components) and, when a production build exists
 * (PARLEY_DIST_DIR, else .next), over HTTP from `next start` on the bench's database —
 * both against 300 ms.
 *
 * Every SQL statement those calls send (Prisma's own included, captured from its query
 * log) is run again under EXPLAIN ANALYZE: the plan is summarised and any sequential
 * scan of Session, Message or Part is a FAIL.
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { Dashboard } from "../server/dashboard";
import { PrismaClient } from "../server/db/generated/client";
import * as Id from "../server/id";
import { Session } from "../server/session";
import { type Context, withActor } from "../server/services";
import { Message, Part } from "../server/session/message";
import { insertBulk } from "../e2e/support/bulk";
import { ShareView } from "../server/share";
import { type BenchDatabase, SQL_ID_FUNCTIONS, benchDatabase, benchServices } from "./database";
import { fetchTimed, inProcessRenderer, startProductionServer } from "./share-render";
import { conversation } from "./parts";
import { runBench, samples } from "./figures";

const SESSIONS = 100_000;
const PROJECTS_PER_TEAM = 8;
const USERS_PER_TEAM = 10;
/** Sessions n ≡ 1 (mod SAMPLE_EVERY) get SAMPLE_MESSAGES messages, one text part each. */
const SAMPLE_EVERY = 50;
const SAMPLE_MESSAGES = 10;
const LONG_MESSAGES = 5_000;
const RUNS = 40;
const WARMUP = 3;
const BATCH = 2_500;
const TARGET_DASHBOARD_P95_MS = 100;
const TARGET_SHARE_P95_MS = 300;
const LARGE_TABLES = new Set(["Session", "Message", "Part"]);

const log = (line = "") => process.stdout.write(`${line}\n`);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

interface Seeded {
  teams: string[];
  users: string[];
  projects: string[];
}


/**
 * One row per n in 1..SESSIONS. A "family" of five consecutive sessions shares a team;
 * the fifth is the child of the fourth (same project and author). Everything else is a
 * deterministic hash of n, so runs are comparable.
 */
const SEED_SESSIONS = `
INSERT INTO "Session" ("id", "teamId", "projectId", "directory", "parentId", "title", "slug", "version", "authorId",
  "summaryAdditions", "summaryDeletions", "summaryFiles", "cost", "tokensInput", "tokensOutput", "tokensReasoning",
  "tokensCacheRead", "tokensCacheWrite", "tokensTotal", "timeCreated", "timeUpdated", "timeArchived", "status", "statusData")
SELECT
  pg_temp.sid(n, $4), ($1::text[])[t + 1], ($2::text[])[t * ${PROJECTS_PER_TEAM} + p + 1], '/bench/' || ($2::text[])[t * ${PROJECTS_PER_TEAM} + p + 1],
  CASE WHEN child THEN pg_temp.sid(n - 1, $4) END,
  (ARRAY['Fix','Add','Refactor','Debug','Write','Review','Update','Remove','Optimize','Document','Test','Migrate'])[1 + n % 12] || ' ' ||
  (ARRAY['login','dashboard','parser','cache','billing','search','upload','export','auth','router','scheduler','webhook',
         'report','queue','importer','profile','settings','payments','notifications','metrics'])[1 + (n / 12) % 20] || ' in ' ||
  (ARRAY['api','frontend','backend','worker','cli','mobile','admin','docs','infra','sdk','database','tests','build','email','analytics'])[1 + (n / 240) % 15] ||
  ' (#' || n || ')',
  'bench-' || n, 'bench', ($3::text[])[t * ${USERS_PER_TEAM} + u + 1],
  CASE WHEN n % 3 <> 0 THEN (n * 7) % 300 END, CASE WHEN n % 3 <> 0 THEN (n * 3) % 120 END, CASE WHEN n % 3 <> 0 THEN n % 9 + 1 END,
  CASE WHEN n % 7 = 0 THEN 0 ELSE ((n * 37) % 100000) / 10000.0 END,
  ti, tout, treas, tread, twrite, ti + tout + treas + tread + twrite,
  updated - interval '2 hours', updated,
  CASE WHEN n % 10 = 3 THEN updated END,
  CASE WHEN n % 200 = 7 THEN 'busy' WHEN n % 500 = 11 THEN 'retry' ELSE 'idle' END,
  CASE WHEN n % 500 = 11 THEN jsonb_build_object('type', 'retry', 'attempt', 1, 'message', 'rate limited', 'next', 0) END
FROM (
  SELECT n, child, t, p, u,
    $5::timestamptz - ((f * 7919 + n * 13) % 525600) * interval '1 minute' AS updated,
    CASE WHEN n % 7 = 0 THEN 0 ELSE (n * 53) % 50000 END AS ti, CASE WHEN n % 7 = 0 THEN 0 ELSE (n * 29) % 8000 END AS tout,
    (n * 13) % 2000 * (n % 2) AS treas, (n * 17) % 30000 AS tread, (n * 11) % 1000 AS twrite
  FROM (
    SELECT n, child, f,
      CASE WHEN g % 10 < 5 THEN 0 WHEN g % 10 < 8 THEN 1 ELSE 2 END AS t,
      (f * 7 + g) % ${PROJECTS_PER_TEAM} AS p,
      (f * 3) % ${USERS_PER_TEAM} AS u
    FROM (
      SELECT n, n % 5 = 0 AS child, CASE WHEN n % 5 = 0 THEN n - 1 ELSE n END AS f, (n - 1) / 5 AS g
      FROM generate_series(1, ${SESSIONS}) AS n
    ) a
  ) b
) c`;

/** SAMPLE_MESSAGES messages (user and assistant alternating) with one text part each, for every sampled session. */
const SEED_MESSAGES = `
INSERT INTO "Message" ("id", "sessionId", "role", "data", "timeCreated")
SELECT pg_temp.mid(k, $1), pg_temp.sid(s, $2), CASE WHEN k % 2 = 1 THEN 'user' ELSE 'assistant' END,
  CASE WHEN k % 2 = 1
    THEN jsonb_build_object('time', jsonb_build_object('created', 0), 'agent', 'build',
           'model', jsonb_build_object('providerId', 'openai', 'modelId', 'gpt-bench'))
    ELSE jsonb_build_object('parentId', pg_temp.mid(k - 1, $1), 'providerId', 'openai', 'modelId', 'gpt-bench', 'agent', 'build',
           'path', jsonb_build_object('cwd', '/bench', 'root', '/bench'), 'cost', 0.001,
           'tokens', jsonb_build_object('input', 10, 'output', 5, 'reasoning', 0, 'cache', jsonb_build_object('read', 0, 'write', 0)),
           'time', jsonb_build_object('created', 0))
  END,
  $3::timestamptz
FROM (SELECT k, 1 + ${SAMPLE_EVERY} * ((k - 1) / ${SAMPLE_MESSAGES}) AS s FROM generate_series(1, $4::int) AS k) x`;

const SEED_PARTS = `
INSERT INTO "Part" ("id", "messageId", "sessionId", "type", "data")
SELECT pg_temp.pid(k, $1), pg_temp.mid(k, $1), pg_temp.sid(1 + ${SAMPLE_EVERY} * ((k - 1) / ${SAMPLE_MESSAGES}), $2), 'text',
  jsonb_build_object('text', 'Sample message ' || k || ': the quick brown fox jumps over the lazy dog.')
FROM generate_series(1, $3::int) AS k`;

async function seedBulk(client: pg.Client): Promise<Seeded> {
  const teams = Array.from({ length: 3 }, () => Id.ascending("team"));
  const users = Array.from({ length: 3 * USERS_PER_TEAM }, () => Id.ascending("user"));
  const projects = Array.from({ length: 3 * PROJECTS_PER_TEAM }, () => Id.ascending("project"));
  await client.query(`INSERT INTO "Team" ("id", "name", "slug") SELECT id, 'Bench team ' || i, id FROM unnest($1::text[]) WITH ORDINALITY AS x(id, i)`, [teams]);
  await client.query(`INSERT INTO "User" ("id", "email", "name") SELECT id, id || '@bench.local', 'Bench user ' || i FROM unnest($1::text[]) WITH ORDINALITY AS x(id, i)`, [users]);
  await client.query(
    `INSERT INTO "Membership" ("teamId", "userId") SELECT ($1::text[])[1 + (i - 1) / ${USERS_PER_TEAM}], id FROM unnest($2::text[]) WITH ORDINALITY AS x(id, i)`,
    [teams, users],
  );
  await client.query(
    `INSERT INTO "Project" ("id", "teamId", "name", "directory")
     SELECT id, ($1::text[])[1 + (i - 1) / ${PROJECTS_PER_TEAM}], 'project-' || i, '/bench/' || id FROM unnest($2::text[]) WITH ORDINALITY AS x(id, i)`,
    [teams, projects],
  );
  await client.query(SQL_ID_FUNCTIONS);
  const base = Date.now() - 10_000;
  let t0 = performance.now();
  await client.query(SEED_SESSIONS, [teams, projects, users, base, new Date()]);
  log(`  ${SESSIONS.toLocaleString("en")} sessions in ${seconds(t0)}`);
  t0 = performance.now();
  const sampled = (SESSIONS / SAMPLE_EVERY) * SAMPLE_MESSAGES;
  const messageBase = Date.now();
  await client.query(SEED_MESSAGES, [messageBase, base, new Date(), sampled]);
  await client.query(SEED_PARTS, [messageBase, base, sampled]);
  log(`  ${sampled.toLocaleString("en")} messages and parts in ${SESSIONS / SAMPLE_EVERY} sessions in ${seconds(t0)}`);
  return { teams, users, projects };
}

/** The shared session: LONG_MESSAGES messages through the module's own schemas, and three child sessions. */
async function seedLongSession(db: PrismaClient, ctx: Context, projectId: string): Promise<{ sessionId: string; shareId: string; partCount: number }> {
  const session = await Session.create(ctx, { projectId, title: "Benchmark: a shared session with 5,000 messages" });
  const { messages, parts } = conversation(session.id, LONG_MESSAGES, { patch: true });
  for (const m of messages) Message.parse(m);
  for (const p of parts) Part.parse(p);
  await insertBulk(db, messages, parts, BATCH);
  for (let i = 0; i < 3; i++) await Session.create(ctx, { projectId, parentId: session.id, title: `Subtask ${i + 1}` });
  const shared = await Session.share(ctx, session.id);
  if (!shared.share) throw new Error("the long session was not shared");
  return { sessionId: session.id, shareId: shared.share.id, partCount: parts.length };
}

interface Timing {
  p50: number;
  p95: number;
  max: number;
}

async function measure(work: () => Promise<unknown>): Promise<Timing> {
  return percentiles(await samples(RUNS, WARMUP, work));
}

function percentiles(samples: number[]): Timing {
  const times = [...samples].sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] ?? Number.NaN;
  return { p50: at(0.5), p95: at(0.95), max: times.at(-1) ?? Number.NaN };
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Heap Fetches"?: number;
  Plans?: PlanNode[];
}

function walk(node: PlanNode, visit: (node: PlanNode) => void): void {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

function isPlanRoot(value: unknown): value is [{ Plan: PlanNode; "Execution Time": number }] {
  return Array.isArray(value) && typeof value[0] === "object" && value[0] !== null && "Plan" in value[0];
}

interface Captured {
  query: string;
  params: unknown[];
}

/** EXPLAIN ANALYZE one captured statement: its scans, and whether it read a large table sequentially. */
async function explain(client: pg.Client, statement: Captured): Promise<{ scans: string[]; seqScans: string[]; ms: number }> {
  const result = await client.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.query}`, statement.params);
  const plan = result.rows[0]?.["QUERY PLAN"];
  if (!isPlanRoot(plan)) throw new Error(`unexpected EXPLAIN output for: ${statement.query}`);
  const scans: string[] = [];
  const seqScans: string[] = [];
  walk(plan[0].Plan, (node) => {
    if (!/Scan/.test(node["Node Type"]) || node["Node Type"] === "CTE Scan" || node["Node Type"] === "Function Scan") return;
    const on = node["Index Name"] ?? node["Relation Name"] ?? "";
    const heap = node["Heap Fetches"] !== undefined ? `, heap fetches ${node["Heap Fetches"]}` : "";
    scans.push(`${node["Node Type"]} ${on} (${node["Actual Rows"] ?? "?"} rows${heap})`);
    if (node["Node Type"] === "Seq Scan" && node["Relation Name"] && LARGE_TABLES.has(node["Relation Name"])) seqScans.push(node["Relation Name"]);
  });
  return { scans, seqScans, ms: plan[0]["Execution Time"] };
}

/** Prisma logs parameters as JSON; DateTime values come out as strings, which PostgreSQL casts back. */
function parseParams(params: string): unknown[] {
  const parsed: unknown = JSON.parse(params);
  return Array.isArray(parsed) ? parsed : [];
}

/** A Prisma client that reports every statement it sends, so the bench can explain them. */
function loggingClient(url: string) {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 10 }), log: [{ emit: "event", level: "query" }] });
}

async function main(): Promise<boolean> {
  const began = performance.now();
  let database: BenchDatabase | undefined;
  let db: ReturnType<typeof loggingClient> | undefined;
  let client: pg.Client | undefined;
  let seeded: Seeded | undefined;
  try {
    database = await benchDatabase("dashboard", log);
    const url = database.url;
    client = new pg.Client({ connectionString: url });
    await client.connect();
    const captured: Captured[] = [];
    let capturing = false;
    db = loggingClient(url);
    db.$on("query", (event) => {
      if (capturing) captured.push({ query: event.query, params: parseParams(event.params) });
    });

    log("Seeding …");
    const seedStart = performance.now();
    seeded = await seedBulk(client);
    const [teamA] = seeded.teams;
    const userA = seeded.users[0];
    const projectA = seeded.projects[0];
    if (!teamA || !userA || !projectA) throw new Error("seeding made no team");
    const ctx: Context = withActor(await benchServices(db), { userId: userA, teamId: teamA });
    let t0 = performance.now();
    const long = await seedLongSession(db, ctx, projectA);
    log(`  1 shared session with ${LONG_MESSAGES.toLocaleString("en")} messages and ${long.partCount.toLocaleString("en")} parts in ${seconds(t0)}`);
    t0 = performance.now();
    await client.query('VACUUM ANALYZE "Session", "Message", "Part", "Share", "User", "Project"');
    log(`  VACUUM ANALYZE in ${seconds(t0)}; seeding took ${seconds(seedStart)} in all`);

    const counts = await client.query<{ team: string; sessions: string; children: string }>(
      `SELECT "teamId" AS team, count(*)::text AS sessions, count("parentId")::text AS children FROM "Session" WHERE "teamId" = ANY($1) GROUP BY 1 ORDER BY 2 DESC`,
      [seeded.teams],
    );
    const tables = await client.query<{ name: string; rows: string; size: string }>(
      `SELECT relname AS name, reltuples::bigint::text AS rows, pg_size_pretty(pg_total_relation_size(oid)) AS size FROM pg_class WHERE relname IN ('Session', 'Message', 'Part') ORDER BY relname`,
    );
    log(`Teams: ${counts.rows.map((r) => `${Number(r.sessions).toLocaleString("en")} sessions (${Number(r.children).toLocaleString("en")} children)`).join(", ")}`);
    log(`Tables: ${tables.rows.map((r) => `${r.name} ~${Number(r.rows).toLocaleString("en")} rows, ${r.size}`).join("; ")}`);
    const indexes = await client.query<{ name: string; size: string }>(
      `SELECT indexrelname AS name, pg_size_pretty(pg_relation_size(indexrelid)) AS size FROM pg_stat_user_indexes WHERE relname = 'Session' ORDER BY pg_relation_size(indexrelid) DESC`,
    );
    log(`Session indexes: ${indexes.rows.map((r) => `${r.name} ${r.size}`).join(", ")}`);

    const parentRow = await client.query<{ parentId: string }>(`SELECT "parentId" FROM "Session" WHERE "teamId" = $1 AND "parentId" IS NOT NULL AND "parentId" <> $2 LIMIT 1`, [teamA, long.sessionId]);
    const parentId = parentRow.rows[0]?.parentId;
    if (!parentId) throw new Error("no child session was seeded");
    const now = Date.now();
    const DAY = 86_400_000;
    const firstPage = await Dashboard.list(ctx, {});
    const costPage = await Dashboard.list(ctx, { sort: "cost" });
    let deepCursor: string | undefined;
    for (let i = 0; i < 20; i++) deepCursor = (await Dashboard.list(ctx, { sort: "tokens", cursor: deepCursor })).nextCursor;
    if (firstPage.items.length !== 50 || firstPage.corrupt.length || !firstPage.nextCursor) throw new Error(`unexpected first page: ${firstPage.items.length} items`);

    const scenarios: { name: string; input: Dashboard.ListInput }[] = [
      { name: "default (updated, unarchived)", input: {} },
      { name: "project", input: { projectId: projectA } },
      { name: "author", input: { authorId: userA } },
      { name: "status busy", input: { status: "busy" } },
      { name: "status retry", input: { status: "retry" } },
      { name: "updated in the last 7 days", input: { updatedFrom: now - 7 * DAY } },
      { name: "updated 90 to 60 days ago", input: { updatedFrom: now - 90 * DAY, updatedTo: now - 60 * DAY } },
      { name: "archived only", input: { archived: true } },
      { name: "archived and not", input: { archived: "all" } },
      { name: "roots only", input: { parentId: null } },
      { name: "children of one session", input: { parentId } },
      { name: 'search "login" (5%)', input: { search: "login" } },
      { name: 'search "fix login" (0.4%)', input: { search: "fix login" } },
      { name: 'search "#4242" (rare)', input: { search: "#4242)" } },
      { name: "sort cost", input: { sort: "cost" } },
      { name: "sort tokens", input: { sort: "tokens" } },
      { name: "sort cost, project", input: { sort: "cost", projectId: projectA } },
      { name: "sort tokens, status busy", input: { sort: "tokens", status: "busy" } },
      { name: "project+author+30 days+search", input: { projectId: projectA, authorId: userA, updatedFrom: now - 30 * DAY, search: "a" } },
      { name: "roots, sort cost, limit 200", input: { parentId: null, sort: "cost", limit: 200 } },
      { name: "page 2 (cursor)", input: { cursor: firstPage.nextCursor } },
      { name: "sort cost, page 2 (cursor)", input: { sort: "cost", cursor: costPage.nextCursor } },
      { name: "sort tokens, page 21 (cursor)", input: { sort: "tokens", cursor: deepCursor } },
    ];

    log(`\nDashboard.list on the largest team, ${RUNS} runs after ${WARMUP} warm-up (ms; page + totals + rows, cursor pages: page + rows):`);
    log(`  ${"filter".padEnd(34)} ${"items".padStart(5)} ${"matching".padStart(9)} ${"p50".padStart(7)} ${"p95".padStart(7)} ${"max".padStart(7)}  target p95 < ${TARGET_DASHBOARD_P95_MS}`);
    let pass = true;
    for (const scenario of scenarios) {
      const result = await Dashboard.list(ctx, scenario.input);
      // A cursor page has no totals; the first page of its filter has them.
      const totals = result.totals ?? (await Dashboard.list(ctx, { ...scenario.input, cursor: undefined })).totals;
      if (!totals || Boolean(scenario.input.cursor) === Boolean(result.totals)) throw new Error(`${scenario.name}: totals only on the first page`);
      const timing = await measure(() => Dashboard.list(ctx, scenario.input));
      const ok = timing.p95 < TARGET_DASHBOARD_P95_MS;
      if (!ok) pass = false;
      log(
        `  ${scenario.name.padEnd(34)} ${String(result.items.length).padStart(5)} ${totals.sessions.toLocaleString("en").padStart(9)} ` +
          `${timing.p50.toFixed(1).padStart(7)} ${timing.p95.toFixed(1).padStart(7)} ${timing.max.toFixed(1).padStart(7)}  ${ok ? "PASS" : "FAIL"}`,
      );
    }

    const shareRuns = [
      { name: "share page, newest 50 messages", input: { shareId: long.shareId, limit: 50 } },
      { name: "share page, newest 200 messages", input: { shareId: long.shareId, limit: 200 } },
    ];
    const firstShare = await ShareView.page(ctx, { shareId: long.shareId, limit: 50 });
    const shareParts = firstShare.messages.messages.reduce((n, m) => n + m.parts.length, 0);
    if (firstShare.messages.messages.length !== 50 || !firstShare.messages.cursor || firstShare.children.length !== 3) {
      throw new Error(`unexpected share page: ${firstShare.messages.messages.length} messages, ${firstShare.children.length} children`);
    }
    // An older page: 2,500 messages back.
    let older: string | undefined = firstShare.messages.cursor;
    for (let i = 0; i < 49; i++) older = (await ShareView.messages(ctx, long.shareId, { limit: 50, before: older })).cursor;
    log(`\nShare page server-side load (ShareView.page: resolve, messages with parts, children), ${RUNS} runs (ms):`);
    log(`  ${"page".padEnd(34)} ${"p50".padStart(7)} ${"p95".padStart(7)} ${"max".padStart(7)}  target p95 < ${TARGET_SHARE_P95_MS}`);
    for (const run of [...shareRuns, { name: "share page, 2,500 messages back", input: { shareId: long.shareId, limit: 50, before: older } }]) {
      const timing = await measure(() => ShareView.page(ctx, run.input));
      const ok = timing.p95 < TARGET_SHARE_P95_MS;
      if (!ok) pass = false;
      log(`  ${run.name.padEnd(34)} ${timing.p50.toFixed(1).padStart(7)} ${timing.p95.toFixed(1).padStart(7)} ${timing.max.toFixed(1).padStart(7)}  ${ok ? "PASS" : "FAIL"}`);
    }
    log(`  (first page: 50 messages, ${shareParts} parts, ${firstShare.children.length} child sessions, ${JSON.stringify(firstShare).length.toLocaleString("en")} bytes of JSON)`);

    // Plans: every statement the measured calls send, Prisma's own included.
    // Before the production server below starts on this database: at boot it recovers the
    // sessions it finds busy (idle again), which would change the data the plans are of.
    log(`\nPlans (EXPLAIN ANALYZE of every statement sent; a sequential scan of ${[...LARGE_TABLES].join("/")} fails):`);
    let seqFree = true;
    const explainCalls: { name: string; call: () => Promise<unknown> }[] = [
      ...scenarios.map((s) => ({ name: s.name, call: () => Dashboard.list(ctx, s.input) })),
      { name: "share page, newest 50 messages", call: () => ShareView.page(ctx, { shareId: long.shareId, limit: 50 }) },
    ];
    for (const { name, call } of explainCalls) {
      captured.length = 0;
      capturing = true;
      await call();
      capturing = false;
      log(`  ${name}:`);
      for (const statement of captured) {
        const { scans, seqScans, ms } = await explain(client, statement);
        if (seqScans.length) seqFree = false;
        const head = statement.query.replace(/\s+/g, " ").slice(0, 60);
        log(`    ${seqScans.length ? "FAIL" : "ok  "} ${ms.toFixed(1).padStart(6)} ms  ${scans.join(" + ") || "(no scan)"}  — ${head}…`);
      }
    }
    if (!seqFree) pass = false;

    // The page itself: data + payload + React render in process, then the real production server over HTTP.
    const newest = `Question ${LONG_MESSAGES - 2}:`;
    const render = await inProcessRenderer(ctx, 50);
    const sample = await render(long.shareId);
    if (!sample.html.includes(newest) || sample.html.includes("Question 0:")) throw new Error("the rendered share page does not hold exactly its newest page");
    log(`\nShare page server-side render of its first page (5,000-message session), ${RUNS} runs (ms; load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores):`);
    log(`  ${"measured".padEnd(34)} ${"p50".padStart(7)} ${"p95".padStart(7)} ${"max".padStart(7)}  target p95 < ${TARGET_SHARE_P95_MS}`);
    const inProcess = await measure(() => render(long.shareId));
    const inProcessOk = inProcess.p95 < TARGET_SHARE_P95_MS;
    if (!inProcessOk) pass = false;
    log(`  ${"in process: load + payload + React".padEnd(34)} ${inProcess.p50.toFixed(1).padStart(7)} ${inProcess.p95.toFixed(1).padStart(7)} ${inProcess.max.toFixed(1).padStart(7)}  ${inProcessOk ? "PASS" : "FAIL"}`);
    log(`  (${sample.html.length.toLocaleString("en")} bytes of HTML, ${sample.payloadBytes.toLocaleString("en")} bytes of props)`);
    const server = await startProductionServer(url, database.dir ?? mkdtempSync(path.join(os.tmpdir(), "parley-bench-share-")));
    if (typeof server === "string") {
      log(`  over HTTP: skipped, ${server}`);
    } else {
      try {
        const pageUrl = `${server.baseUrl}/share/${long.shareId}`;
        for (let i = 0; i < WARMUP; i++) await fetchTimed(pageUrl);
        const ttfb: number[] = [];
        const total: number[] = [];
        let bytes = 0;
        const cpuBefore = server.cpuMs();
        for (let i = 0; i < RUNS; i++) {
          const response = await fetchTimed(pageUrl);
          if (response.status !== 200 || !response.html.includes(newest)) throw new Error(`GET /share/<id> answered ${response.status} without the newest messages`);
          ttfb.push(response.ttfb);
          total.push(response.total);
          bytes = response.html.length;
        }
        const cpuAfter = server.cpuMs();
        const first = percentiles(ttfb);
        const whole = percentiles(total);
        const httpOk = whole.p95 < TARGET_SHARE_P95_MS;
        if (!httpOk) pass = false;
        log(`  ${"over HTTP (next start): first byte".padEnd(34)} ${first.p50.toFixed(1).padStart(7)} ${first.p95.toFixed(1).padStart(7)} ${first.max.toFixed(1).padStart(7)}`);
        log(`  ${"over HTTP (next start): whole page".padEnd(34)} ${whole.p50.toFixed(1).padStart(7)} ${whole.p95.toFixed(1).padStart(7)} ${whole.max.toFixed(1).padStart(7)}  ${httpOk ? "PASS" : "FAIL"}`);
        const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? `, server CPU ${((cpuAfter - cpuBefore) / RUNS).toFixed(1)} ms per page` : "";
        log(`  (production build in ${server.distDir}/, ${bytes.toLocaleString("en")} bytes of HTML with the RSC payload${cpu})`);
      } finally {
        await server.stop();
      }
    }

    log(`\nNo sequential scan of Session/Message/Part: ${seqFree ? "PASS" : "FAIL"}`);
    log(`Dashboard p95 < ${TARGET_DASHBOARD_P95_MS} ms and share page p95 < ${TARGET_SHARE_P95_MS} ms: ${pass ? "PASS" : "FAIL"}`);
    log(`Total ${seconds(began)}.`);
    return pass;
  } finally {
    if (client && seeded && database?.shared) {
      // A shared database: take the seeded rows away again (messages and parts cascade).
      await client.query(`DELETE FROM "Session" WHERE "teamId" = ANY($1) AND "parentId" IS NOT NULL`, [seeded.teams]);
      await client.query(`DELETE FROM "Session" WHERE "teamId" = ANY($1)`, [seeded.teams]);
      await client.query(`DELETE FROM "Team" WHERE "id" = ANY($1)`, [seeded.teams]);
      await client.query(`DELETE FROM "User" WHERE "id" = ANY($1)`, [seeded.users]);
    }
    await client?.end();
    await db?.$disconnect();
    await database?.close();
  }
}

runBench(main);
