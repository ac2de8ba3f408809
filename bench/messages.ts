/**
 * Benchmark of the two hot reads: the newest page of a very long session and
 * the team's session list.
 *
 *   npm run bench:messages
 *
 * Uses DATABASE_URL when set (seeding its own team and removing it afterwards),
 * otherwise an embedded PostgreSQL in a temporary directory. Seeds one session with
 * 10,000 messages and 50,000 parts plus 1,000 more sessions (10 messages each), then times
 * `Session.messages(ctx, id, { limit: 50 })` and `Session.list(ctx, { limit: 1000 })`
 * in this process (server time, no HTTP) and prints median and p95.
 */
import { performance } from "node:perf_hooks";
import pg from "pg";
import { type Db, createDb } from "../server/db/client";
import * as Id from "../server/id";
import { Session } from "../server/session";
import { type Context, withActor } from "../server/services";
import { benchServices } from "./database";
import { Message, Part } from "../server/session/message";
import { insertBulk } from "../e2e/support/bulk";
import { type BenchDatabase, benchDatabase } from "./database";
import { BENCH_MODEL, BENCH_PATH, conversation, paragraph } from "./parts";
import { assistantInfo } from "../test/messages";
import { runBench, samples } from "./figures";

const MESSAGES = 10_000;
const PARTS = 50_000;
const SESSIONS = 1_000;
/** Messages (one text part each) in every one of the other sessions. */
const OTHER_MESSAGES = 10;
const RUNS = 50;
const WARMUP = 5;
const BATCH = 2_000;
const TARGET_NEWEST_PAGE_MS = 50;

const log = (line = "") => process.stdout.write(`${line}\n`);

async function seedLongSession(db: Db, ctx: Context, projectId: string): Promise<string> {
  const session = await Session.create(ctx, { projectId, title: "Benchmark: a very long session" });
  const { messages, parts } = conversation(session.id, MESSAGES);
  if (parts.length !== PARTS) throw new Error(`seeded ${parts.length} parts, expected ${PARTS}`);
  // Everything written is valid by the module's own schemas.
  for (const m of messages) Message.parse(m);
  for (const p of parts) Part.parse(p);

  await insertBulk(db, messages, parts, BATCH);
  return session.id;
}

async function seedSessions(db: Db, teamId: string, userId: string, projectId: string, directory: string): Promise<void> {
  const now = Date.now();
  const rows = Array.from({ length: SESSIONS }, (_, i) => {
    const created = new Date(now - (SESSIONS - i) * 60_000);
    return {
      id: Id.descending("session"),
      teamId,
      projectId,
      directory,
      title: `Session ${i}: ${paragraph(i).slice(0, 60)}`,
      slug: `bench-${i}`,
      version: "bench",
      authorId: userId,
      cost: i * 0.001,
      tokensInput: BigInt(i * 100),
      timeCreated: created,
      timeUpdated: new Date(created.getTime() + (i % 7) * 1000),
      timeArchived: i % 10 === 0 ? created : null,
    };
  });
  for (let i = 0; i < rows.length; i += BATCH) await db.session.createMany({ data: rows.slice(i, i + BATCH) });

  // A few messages in each, so the planner sees many sessions sharing the tables.
  const messages: Message[] = [];
  const parts: Part[] = [];
  for (const row of rows) {
    let parentId = "";
    for (let j = 0; j < OTHER_MESSAGES; j++) {
      const t = row.timeCreated.getTime() + j * 1000;
      const id = Id.ascending("message");
      const message: Message =
        j % 2 === 0
          ? { id, sessionId: row.id, role: "user", time: { created: t }, agent: "build", model: BENCH_MODEL }
          : assistantInfo({ id, sessionId: row.id, parentId, ...BENCH_MODEL, path: BENCH_PATH, time: { created: t } });
      parentId = id;
      messages.push(Message.parse(message));
      parts.push(Part.parse({ id: Id.ascending("part"), sessionId: row.id, messageId: id, type: "text", text: paragraph(j) }));
    }
  }
  await insertBulk(db, messages, parts, BATCH);
}

async function measure(runs: number, work: () => Promise<unknown>): Promise<{ median: number; p95: number; min: number; max: number }> {
  const times = await samples(runs, WARMUP, work);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] ?? Number.NaN;
  return { median: at(0.5), p95: at(0.95), min: times[0] ?? Number.NaN, max: times.at(-1) ?? Number.NaN };
}

async function explain(url: string, title: string, sql: string, params: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${sql}`, params);
    log(`\n${title}\n  ${sql.replace(/\s+/g, " ")}`);
    for (const row of result.rows) {
      const line = row["QUERY PLAN"];
      log(`    ${line.length > 150 ? `${line.slice(0, 147)}…` : line}`);
    }
  } finally {
    await client.end();
  }
}

async function main(): Promise<boolean> {
  const began = performance.now();
  let database: BenchDatabase | undefined;
  let db: Db | undefined;
  let teamId: string | undefined;
  let userId: string | undefined;
  try {
    database = await benchDatabase("messages", log);
    const url = database.url;
    db = createDb(url, { max: 4 });

    teamId = Id.ascending("team");
    userId = Id.ascending("user");
    const projectId = Id.ascending("project");
    const directory = `/bench/${projectId}`;
    await db.team.create({ data: { id: teamId, name: "Benchmark", slug: teamId } });
    await db.user.create({ data: { id: userId, email: `${userId}@bench.local`, name: "Bench" } });
    await db.membership.create({ data: { teamId, userId, role: "owner" } });
    await db.project.create({ data: { id: projectId, teamId, name: "bench", directory } });
    const ctx: Context = withActor(await benchServices(db), { userId, teamId });

    const seedStart = performance.now();
    const sessionId = await seedLongSession(db, ctx, projectId);
    await seedSessions(db, teamId, userId, projectId, directory);
    await db.$executeRawUnsafe('ANALYZE "Session", "Message", "Part"');
    log(
      `Seeded 1 session with ${MESSAGES.toLocaleString("en")} messages and ${PARTS.toLocaleString("en")} parts, ` +
        `plus ${SESSIONS.toLocaleString("en")} sessions of ${OTHER_MESSAGES} messages each, in ${((performance.now() - seedStart) / 1000).toFixed(1)} s.`,
    );

    // Sanity: the reads return what was seeded.
    const newest = await Session.messages(ctx, sessionId, { limit: 50 });
    const partCount = newest.messages.reduce((n, m) => n + m.parts.length, 0);
    if (newest.messages.length !== 50 || partCount !== 250 || newest.corrupt.length || !newest.cursor) {
      throw new Error(`unexpected newest page: ${newest.messages.length} messages, ${partCount} parts, ${newest.corrupt.length} corrupt`);
    }
    const listed = await Session.list(ctx, { limit: 1000 });
    const unarchived = SESSIONS - SESSIONS / 10 + 1; // every tenth is archived; plus the long session
    if (listed.items.length !== unarchived || listed.corrupt.length) throw new Error(`unexpected list: ${listed.items.length} sessions`);
    // The cursor 500 messages back from the newest.
    const older = (await Session.messages(ctx, sessionId, { limit: 500 })).cursor;

    const results = [
      { name: "Session.messages, newest page (50 messages, 250 parts)", target: TARGET_NEWEST_PAGE_MS, ...(await measure(RUNS, () => Session.messages(ctx, sessionId, { limit: 50 }))) },
      { name: "Session.messages, older page (500 messages back)", target: undefined, ...(await measure(RUNS, () => Session.messages(ctx, sessionId, { limit: 50, before: older }))) },
      { name: `Session.list, limit 1,000 (${unarchived} unarchived)`, target: undefined, ...(await measure(RUNS, () => Session.list(ctx, { limit: 1000 }))) },
    ];

    log(`\nServer time over ${RUNS} runs after ${WARMUP} warm-up runs (ms):`);
    log(`  ${"operation".padEnd(58)} ${"median".padStart(8)} ${"p95".padStart(8)} ${"min".padStart(8)} ${"max".padStart(8)}  target`);
    let pass = true;
    for (const r of results) {
      const verdict = r.target === undefined ? "-" : r.median < r.target ? `< ${r.target} PASS` : `< ${r.target} FAIL`;
      if (r.target !== undefined && !(r.median < r.target)) pass = false;
      log(`  ${r.name.padEnd(58)} ${r.median.toFixed(2).padStart(8)} ${r.p95.toFixed(2).padStart(8)} ${r.min.toFixed(2).padStart(8)} ${r.max.toFixed(2).padStart(8)}  ${verdict}`);
    }

    const pageIds = newest.messages.map((m) => m.info.id);
    await explain(url, "Newest page, messages:", 'SELECT * FROM "Message" WHERE "sessionId" = $1 ORDER BY id DESC LIMIT 51', [sessionId]);
    await explain(url, "Newest page, their parts:", 'SELECT * FROM "Part" WHERE "messageId" = ANY($1) ORDER BY id ASC', [pageIds]);
    await explain(
      url,
      "Session list:",
      'SELECT * FROM "Session" WHERE "teamId" = $1 AND "timeArchived" IS NULL ORDER BY "timeUpdated" DESC, id ASC LIMIT 1001',
      [teamId],
    );

    log(`\nNewest page target (median < ${TARGET_NEWEST_PAGE_MS} ms): ${pass ? "PASS" : "FAIL"}`);
    log(`Total ${((performance.now() - began) / 1000).toFixed(1)} s.`);
    return pass;
  } finally {
    if (db && teamId && userId) {
      if (database?.shared) {
        // A shared database: take the seeded rows away again (messages and parts cascade).
        await db.session.deleteMany({ where: { teamId, parentId: { not: null } } });
        await db.session.deleteMany({ where: { teamId } });
        await db.team.delete({ where: { id: teamId } });
        await db.user.delete({ where: { id: userId } });
      }
      await db.$disconnect();
    }
    await database?.close();
  }
}

runBench(main);
