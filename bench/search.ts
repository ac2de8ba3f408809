/**
 * Benchmark of full-text search (`search.sessions`: server/search).
 *
 *   npm run bench:search [-- --sessions 100000 --parts 20]
 *
 * Uses DATABASE_URL when set (seeding its own three teams and removing them afterwards;
 * with --keep they stay, and a later run on the same database with as many sessions uses
 * them instead of seeding again — for studying plans), otherwise an embedded PostgreSQL in
 * a temporary directory. Seeds --sessions sessions
 * (default 100,000) across 3 teams (50% / 30% / 20%), each with a user message and an
 * answer holding --parts parts in all (default 20: 2,000,000 parts), straight in SQL:
 * text parts, tool calls (a title, a file path, an output) and patches, their words drawn
 * from a vocabulary of 5,000 plus marker words of known frequency — "bravo" in 50% of
 * the parts, "alpha" in 10%, "charlie" in 0.1%, "zq<n>" in about 20 parts each. The
 * stored words (the generated column) are computed by PostgreSQL as it inserts. Then
 * VACUUM ANALYZE.
 *
 * Measured on the largest team: searches by words of every frequency, two-word queries,
 * a path, a title word, a word found nowhere, a second page; in this process
 * (`Search.sessions`: the page query, the rows, the snippets), and over HTTP (a GET of
 * the tRPC procedure, signed in) when a production build exists (PARLEY_DIST_DIR, else
 * .next). p50/p95 against a p95 target of 100 ms; each query's plan is printed (EXPLAIN
 * ANALYZE). Prints PASS/FAIL and the Node version.
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { createDb } from "../server/db/client";
import * as Id from "../server/id";
import { Search } from "../server/search";
import { choosePlan, pageQuery } from "../server/search/search";
import { type Context, withActor } from "../server/services";
import { signUp } from "./app";
import { SQL_ID_FUNCTIONS, benchDatabase, benchServices } from "./database";
import { numberArg, runBench, samples, stats, verdict } from "./figures";
import { startProductionServer } from "./share-render";

const SESSIONS = numberArg("sessions", 100_000, { integer: true });
const PARTS = numberArg("parts", 20, { integer: true });
const RUNS = numberArg("runs", 40, { integer: true });
const WARMUP = 3;
/** Sessions seeded per statement. */
const BATCH = 5_000;
const TARGET_P95_MS = 100;
/** "zq<n>" words: each in about 20 parts. */
const RARE_WORDS = Math.max(1, Math.floor((SESSIONS * PARTS) / 20));

const log = (line = "") => process.stdout.write(`${line}\n`);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** The id functions (bench/database.ts), and the words of the seeded parts. */
const SQL_FUNCTIONS = `${SQL_ID_FUNCTIONS}
-- 4,999 phrases of 24 words from the vocabulary (each word in about 0.5% of them).
CREATE TEMP TABLE phrase AS
  SELECT p AS i, string_agg('w' || ((p * 7919 + i * 104729 + (p % 97) * i * i) % 5000), ' ') AS words
  FROM generate_series(0, 4998) AS p, generate_series(1, 24) AS i GROUP BY p;
CREATE UNIQUE INDEX ON phrase (i);
-- The words of part k: a phrase, and the marker words of their frequency.
CREATE FUNCTION pg_temp.words(k bigint) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT words
    || CASE WHEN k % 2 = 0 THEN ' bravo' ELSE '' END
    || CASE WHEN k % 10 = 3 THEN ' alpha' ELSE '' END
    || CASE WHEN k % 1000 = 7 THEN ' charlie' ELSE '' END
    || ' zq' || (k % ${RARE_WORDS})
  FROM pg_temp.phrase WHERE i = k % 4999 $$;
`;

/** Sessions lo..hi: one row each; team by n (50/30/20), five projects and authors per team. */
const SEED_SESSIONS = `
INSERT INTO "Session" ("id", "teamId", "projectId", "directory", "title", "slug", "version", "authorId", "timeCreated", "timeUpdated")
SELECT pg_temp.sid(n, $4), ($1::text[])[t + 1], ($2::text[])[t * 5 + n % 5 + 1], '/bench', 
  (ARRAY['Fix','Add','Refactor','Debug','Write'])[1 + n % 5] || ' ' || (ARRAY['login','parser','cache','billing','search','upload','router','queue'])[1 + (n / 5) % 8] || ' (#' || n || ')',
  'bench-' || n, 'bench', ($3::text[])[t * 5 + n % 5 + 1],
  $5::timestamptz - ((n * 7919) % 525600) * interval '1 minute', $5::timestamptz - ((n * 7919) % 525600) * interval '1 minute'
FROM (SELECT n, CASE WHEN n % 10 < 5 THEN 0 WHEN n % 10 < 8 THEN 1 ELSE 2 END AS t FROM generate_series($6::bigint, $7::bigint) AS n) x`;

const SEED_MESSAGES = `
INSERT INTO "Message" ("id", "sessionId", "role", "data", "timeCreated")
SELECT pg_temp.mid(n * 2 + r, $1), pg_temp.sid(n, $1), CASE WHEN r = 0 THEN 'user' ELSE 'assistant' END,
  jsonb_build_object('time', jsonb_build_object('created', 0)), $2::timestamptz
FROM generate_series($3::bigint, $4::bigint) AS n, generate_series(0, 1) AS r`;

/** Part j of session n: the first is the user's prompt; then text, tool calls (every third) and a patch (every tenth). */
const SEED_PARTS = `
INSERT INTO "Part" ("id", "messageId", "sessionId", "type", "data")
SELECT pg_temp.pid(k, $1), pg_temp.mid(n * 2 + CASE WHEN j = 0 THEN 0 ELSE 1 END, $1), pg_temp.sid(n, $1),
  CASE WHEN j > 0 AND j % 10 = 9 THEN 'patch' WHEN j % 3 = 2 THEN 'tool' ELSE 'text' END,
  CASE
    WHEN j > 0 AND j % 10 = 9 THEN jsonb_build_object('hash', 'h' || k, 'files', jsonb_build_array('/bench/src/module' || (k % 3000) || '/file' || (k % 17) || '.ts'))
    WHEN j % 3 = 2 THEN jsonb_build_object('callId', 'c' || k, 'tool', 'bash', 'state', jsonb_build_object(
      'status', 'completed', 'title', 'Run the checks of module' || (k % 3000), 'input', jsonb_build_object('command', 'make check'),
      'output', pg_temp.words(k), 'metadata', '{}'::jsonb, 'time', jsonb_build_object('start', 1, 'end', 2)))
    ELSE jsonb_build_object('text', pg_temp.words(k), 'time', jsonb_build_object('start', 1, 'end', 2))
  END
FROM (SELECT n, j, (n - 1) * ${PARTS} + j AS k FROM generate_series($2::bigint, $3::bigint) AS n, generate_series(0, ${PARTS - 1}) AS j) x`;

interface Seeded {
  teams: string[];
  users: string[];
}

/**
 * Seed the sessions and parts. On a database of its own, the search index is dropped
 * first and built again after (one bulk build instead of two million insertions): the
 * stored words are computed as rows are inserted either way.
 */
async function seed(client: pg.Client, ownDatabase: boolean): Promise<Seeded> {
  const teams = Array.from({ length: 3 }, () => Id.ascending("team"));
  const users = Array.from({ length: 15 }, () => Id.ascending("user"));
  const projects = Array.from({ length: 15 }, () => Id.ascending("project"));
  await client.query(`INSERT INTO "Team" ("id", "name", "slug") SELECT id, 'Search bench ' || i, id FROM unnest($1::text[]) WITH ORDINALITY AS x(id, i)`, [teams]);
  await client.query(`INSERT INTO "User" ("id", "email", "name") SELECT id, id || '@bench.local', 'Bench ' || i FROM unnest($1::text[]) WITH ORDINALITY AS x(id, i)`, [users]);
  await client.query(`INSERT INTO "Membership" ("teamId", "userId") SELECT ($1::text[])[1 + (i - 1) / 5], id FROM unnest($2::text[]) WITH ORDINALITY AS x(id, i)`, [teams, users]);
  await client.query(`INSERT INTO "Project" ("id", "teamId", "name", "directory") SELECT id, ($1::text[])[1 + (i - 1) / 5], 'project-' || i, '/bench/' || id FROM unnest($2::text[]) WITH ORDINALITY AS x(id, i)`, [teams, projects]);
  await client.query(SQL_FUNCTIONS);
  const base = Date.now() - 10_000;
  const now = new Date();
  const t0 = performance.now();
  if (ownDatabase) await client.query('DROP INDEX "Part_search_idx"');
  for (let lo = 1; lo <= SESSIONS; lo += BATCH) {
    const hi = Math.min(SESSIONS, lo + BATCH - 1);
    await client.query(SEED_SESSIONS, [teams, projects, users, base, now, lo, hi]);
    await client.query(SEED_MESSAGES, [base, now, lo, hi]);
    await client.query(SEED_PARTS, [base, lo, hi]);
    if (hi % (BATCH * 4) === 0 || hi === SESSIONS) log(`  ${hi.toLocaleString("en")} sessions, ${(hi * PARTS).toLocaleString("en")} parts (${seconds(t0)})`);
  }
  if (ownDatabase) {
    const t1 = performance.now();
    await client.query("SET maintenance_work_mem = '256MB'");
    await client.query('CREATE INDEX "Part_search_idx" ON "Part" USING GIN ("search")');
    log(`  search index built in ${seconds(t1)}`);
  }
  return { teams, users };
}

/** --keep: what is seeded on DATABASE_URL stays there. */
const KEEP = process.argv.includes("--keep");

/** The teams and users an earlier run with --keep seeded on this database, when it seeded as many sessions; else undefined. */
async function kept(client: pg.Client): Promise<Seeded | undefined> {
  const teams = (await client.query<{ id: string }>(`SELECT id FROM "Team" WHERE name LIKE 'Search bench %' ORDER BY id`)).rows.map((r) => r.id);
  if (teams.length !== 3) return undefined;
  const sessions = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "Session" WHERE "teamId" = ANY($1)`, [teams]);
  if (sessions.rows[0]?.n !== SESSIONS) return undefined;
  const users = (await client.query<{ id: string }>(`SELECT "userId" AS id FROM "Membership" WHERE "teamId" = ANY($1) ORDER BY "userId"`, [teams])).rows.map((r) => r.id);
  return { teams, users };
}

interface Scenario {
  name: string;
  input: Search.SearchInput;
}

function scenarios(rareWord: string, nextCursor: string | undefined): Scenario[] {
  return [
    { name: 'common word "bravo" (50% of parts)', input: { query: "bravo" } },
    { name: 'frequent word "alpha" (10%)', input: { query: "alpha" } },
    { name: 'vocabulary word "w42" (~0.5%)', input: { query: "w42" } },
    { name: 'medium word "charlie" (0.1%)', input: { query: "charlie" } },
    { name: `rare word "${rareWord}" (~20 parts)`, input: { query: rareWord } },
    { name: 'two words "alpha charlie"', input: { query: "alpha charlie" } },
    { name: 'two words "w42 w4242"', input: { query: "w42 w4242" } },
    // Part 69 (session 4, of the largest team) is a patch of this file.
    { name: 'path "module69/file1.ts"', input: { query: "module69/file1.ts" } },
    { name: 'title word "billing"', input: { query: "billing" } },
    { name: 'nowhere "nonexistentword"', input: { query: "nonexistentword" } },
    { name: 'roots only, archived too, "alpha"', input: { query: "alpha", parentId: null, archived: "all" } },
    ...(nextCursor ? [{ name: '"bravo", page 2 (cursor)', input: { query: "bravo", cursor: nextCursor } }] : []),
  ];
}

async function measure(work: () => Promise<unknown>): Promise<ReturnType<typeof stats>> {
  return stats(await samples(RUNS, WARMUP, work));
}

/** The page query's plan, in one line: its node types and the indexes they use. */
async function planOf(client: pg.Client, db: Context["db"], teamId: string, input: Search.SearchInput): Promise<string> {
  const filter = Search.SearchInput.parse(input);
  const chosen = await choosePlan({ db }, teamId, filter);
  const query = pageQuery(teamId, filter, chosen);
  const result = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${query.text}`, query.values);
  const nodes = result.rows
    .map((row) => row["QUERY PLAN"].trim().replace(/^->\s*/, ""))
    .filter((line) => !/^[\w ]+:/.test(line) && /\b(Scan|Join|Loop|Sort|Limit|Append|Unique|CTE)\b/.test(line))
    .map((line) => line.replace(/\s*\(actual.*$/, ""))
    .join(" › ");
  const form = (few: boolean) => (few ? "few: matches first" : "many: sessions walked");
  return `parts ${form(chosen.fewParts)}, titles ${form(chosen.fewTitles)}: ${nodes}`;
}

/** Over HTTP, when a production build exists: a member of `teamId` signed in through the app, timing GETs of search.sessions. */
async function overHttp(url: string, client: pg.Client, teamId: string, list: Scenario[]): Promise<{ name: string; p50: number; p95: number }[] | string> {
  process.env.PARLEY_SIGNUP = "open";
  const server = await startProductionServer(url, mkdtempSync(path.join(os.tmpdir(), "parley-bench-search-")));
  if (typeof server === "string") return server;
  try {
    const { userId, cookie } = await signUp(server.baseUrl, "Search bench");
    await client.query(`INSERT INTO "Membership" ("teamId", "userId") VALUES ($1, $2)`, [teamId, userId]);
    const active = await fetch(`${server.baseUrl}/api/auth/organization/set-active`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", origin: server.baseUrl },
      body: JSON.stringify({ organizationId: teamId }),
    });
    if (!active.ok) throw new Error(`could not switch to the bench team: ${active.status} ${await active.text()}`);
    const get = async (input: Search.SearchInput) => {
      const res = await fetch(`${server.baseUrl}/api/trpc/search.sessions?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { cookie } });
      if (!res.ok) throw new Error(`search.sessions: HTTP ${res.status} ${await res.text()}`);
      await res.text();
    };
    const rows: { name: string; p50: number; p95: number }[] = [];
    for (const scenario of list) {
      const timing = await measure(() => get(scenario.input));
      rows.push({ name: scenario.name, p50: timing.median, p95: timing.p95 });
    }
    await client.query(`DELETE FROM "Membership" WHERE "userId" = $1`, [userId]);
    return rows;
  } finally {
    await server.stop();
  }
}

const row = (name: string, items: string, p50: number, p95: number, ok: boolean) =>
  `  ${name.padEnd(40)} ${items.padStart(5)} ${p50.toFixed(1).padStart(7)} ${p95.toFixed(1).padStart(7)}  ${verdict(ok)}`;

async function main(): Promise<boolean> {
  const began = performance.now();
  log(`bench:search on Node ${process.version}, ${os.cpus().length} cores; ${SESSIONS.toLocaleString("en")} sessions × ${PARTS} parts`);
  const database = await benchDatabase("search", log);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const db = createDb(database.url, { max: 4 });
  let seeded: Seeded | undefined;
  try {
    log("Seeding …");
    const t0 = performance.now();
    const earlier = database.shared ? await kept(client) : undefined;
    if (earlier) log("  using the teams a run with --keep seeded");
    else {
      seeded = await seed(client, !database.shared);
      await client.query('VACUUM ANALYZE "Session", "Message", "Part"');
    }
    const teams = earlier ?? seeded;
    if (!teams) throw new Error("seeding made no team");
    const size = await client.query<{ part: string; index: string }>(
      `SELECT pg_size_pretty(pg_total_relation_size('"Part"')) AS part, pg_size_pretty(pg_relation_size('"Part_search_idx"')) AS index`,
    );
    log(`  seeded and analyzed in ${seconds(t0)}; Part ${size.rows[0]?.part} in all, its search index ${size.rows[0]?.index}`);
    const [teamA] = teams.teams;
    const [userA] = teams.users;
    if (!teamA || !userA) throw new Error("seeding made no team");
    const ctx: Context = withActor(await benchServices(db, database.url), { userId: userA, teamId: teamA });
    // Part PARTS * 2 + 5 is in session 3 (of the largest team), as are the other parts with its word.
    const rareWord = `zq${(PARTS * 2 + 5) % RARE_WORDS}`;
    const first = await Search.sessions(ctx, { query: "bravo" });
    const list = scenarios(rareWord, first.nextCursor);

    log(`\nSearch.sessions in process on the largest team, ${RUNS} runs after ${WARMUP} warm-up (ms), target p95 ≤ ${TARGET_P95_MS}:`);
    log(`  ${"query".padEnd(40)} ${"items".padStart(5)} ${"p50".padStart(7)} ${"p95".padStart(7)}`);
    let pass = true;
    const plans: string[] = [];
    for (const scenario of list) {
      const result = await Search.sessions(ctx, scenario.input);
      const timing = await measure(() => Search.sessions(ctx, scenario.input));
      const ok = timing.p95 <= TARGET_P95_MS;
      pass &&= ok;
      log(row(scenario.name, String(result.items.length), timing.median, timing.p95, ok));
      plans.push(`  ${scenario.name}: ${await planOf(client, db, teamA, scenario.input)}`);
    }
    log("\nPlans of the page query:");
    for (const line of plans) log(line);

    const http = await overHttp(database.url, client, teamA, list);
    if (typeof http === "string") log(`\nOver HTTP: skipped, ${http}`);
    else {
      log(`\nOver HTTP (next start, GET /api/trpc/search.sessions signed in), ${RUNS} runs (ms):`);
      for (const r of http) {
        const ok = r.p95 <= TARGET_P95_MS;
        pass &&= ok;
        log(row(r.name, "", r.p50, r.p95, ok));
      }
    }
    log(`\nSearch p95 ≤ ${TARGET_P95_MS} ms: ${verdict(pass)} (Node ${process.version}, ${seconds(began)} in all)`);
    return pass;
  } finally {
    if (seeded && database.shared && !KEEP) {
      await client.query(`DELETE FROM "Session" WHERE "teamId" = ANY($1)`, [seeded.teams]);
      await client.query(`DELETE FROM "Team" WHERE "id" = ANY($1)`, [seeded.teams]);
      await client.query(`DELETE FROM "User" WHERE "id" = ANY($1)`, [seeded.users]);
    }
    await client.end();
    await db.$disconnect();
    await database.close();
  }
}

runBench(main);
