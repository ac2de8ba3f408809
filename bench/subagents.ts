/**
 * npm run bench:subagents [-- --children 10 --runs 5]
 *
 * What running work through subagents costs on the server: the same N jobs ("read
 * README.md (job i)" with the built-in offline model: a tool step and an answer each) done
 *
 *   (a) by N root sessions prompted at once, and
 *   (b) by one parent session whose prompt hands the N jobs to N subagents in one step
 *       (the task tool, N child sessions running in parallel, live progress reports),
 *
 * each timed from creating the session(s) to the last runner going idle, as this
 * process's CPU time (user + system). Both run the real loop, processor, tools (in the
 * sandbox), snapshots, write path, bus and PostgreSQL bridge against the benchmark's own
 * embedded PostgreSQL; the model runs in process (no HTTP: the benchmark compares two ways
 * of doing the same work on one server). Alternating runs after a warm-up of each; prints
 * the median of each and the parent's extra CPU. Target: (b) at most 10 % more than (a).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Bus } from "../server/bus/bus";
import { bridge, everyEvent } from "../server/bus/postgres";
import { createDb } from "../server/db/client";
import { createOfflineModel } from "../server/provider/offline";
import { type Context, withActor } from "../server/services";
import { Session } from "../server/session";
import { Runners } from "../server/session/runner";
import { wire } from "../server/session/wire";
import { benchDatabase, benchModels, benchServices, benchSettings, benchWorkspace } from "./database";
import { ms, numberArg, stats, verdict } from "./figures";

const CHILDREN = numberArg("children", 10, { integer: true });
const RUNS = numberArg("runs", 5, { integer: true });
/** Job i: the same work each time, worded apart (identical calls in a row would be asked about as a doom loop). */
const job = (i: number) => `read README.md (job ${i + 1})`;
const TARGET_EXTRA = 0.1;

const log = (line = "") => process.stdout.write(`${line}\n`);

/** CPU milliseconds `work` took in this process. */
async function cpu(work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function idle(ctx: Context, sessionId: string): Promise<void> {
  await ctx.runners.idle(sessionId);
  while (await Runners.busy(ctx.lock, ctx.runners, sessionId)) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function main(): Promise<number> {
  const database = await benchDatabase("subagents", log);
  const dir = mkdtempSync(path.join(os.tmpdir(), "parley-bench-subagents-data-"));
  const db = createDb(database.url, { max: 20 });
  const bus = new Bus();
  // As the server runs it (server/runtime.ts): streamed changes go through PostgreSQL only while another instance listens.
  const link = await bridge(bus, database.url, { encode: wire, optional: everyEvent });
  const model = createOfflineModel({});
  const services = await benchServices(db, database.url, {
    bus,
    models: benchModels(model),
    settings: benchSettings(dir),
  });
  const workspace = await benchWorkspace(db, path.join(dir, "project"));
  const ctx = withActor(services, workspace.actor);
  try {
    log(`bench:subagents — ${CHILDREN} jobs ("${job(0)}"…) as ${CHILDREN} root sessions vs one parent with ${CHILDREN} subagents; Node ${process.version}, ${os.cpus().length} cores`);
    log(`${services.sandbox.describe()}; ${services.snapshots.describe()}`);
    log("Timed: this server process's CPU from creating the session(s) to the last runner idle (loop, tools, snapshots, writes, bus, bridge; model in process).\n");

    // Named sessions: a default title would add a background title request.
    const roots = () =>
      cpu(async () => {
        const sessions = await Promise.all(Array.from({ length: CHILDREN }, (_, i) => Session.create(ctx, { projectId: workspace.projectId, title: `root ${i}` })));
        await Promise.all(sessions.map((s, i) => Session.prompt(ctx, { sessionId: s.id, parts: [{ type: "text", text: job(i) }] })));
        await Promise.all(sessions.map((s) => idle(ctx, s.id)));
      });
    let children = 0;
    const parent = () =>
      cpu(async () => {
        const session = await Session.create(ctx, { projectId: workspace.projectId, title: "parent" });
        const jobs = Array.from({ length: CHILDREN }, (_, i) => job(i)).join(", ");
        await Session.prompt(ctx, { sessionId: session.id, parts: [{ type: "text", text: `in parallel, ask ${CHILDREN} subagents to ${jobs}` }] });
        await idle(ctx, session.id);
        children = (await Session.children(ctx, session.id)).length;
      });

    log("warm-up: root sessions…");
    await roots();
    log("warm-up: parent…");
    await parent();
    if (children !== CHILDREN) throw new Error(`the parent ran ${children} subagents, not ${CHILDREN}`);
    const a: number[] = [];
    const b: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      a.push(await roots());
      b.push(await parent());
    }
    const sa = stats(a);
    const sb = stats(b);
    log(`   ${"CPU (ms)".padEnd(40)} ${"median".padStart(8)} ${"p95".padStart(8)} ${"max".padStart(8)}`);
    log(`   ${`(a) ${CHILDREN} root sessions`.padEnd(40)} ${ms(sa.median)} ${ms(sa.p95)} ${ms(sa.max)}`);
    log(`   ${`(b) 1 parent + ${CHILDREN} subagents`.padEnd(40)} ${ms(sb.median)} ${ms(sb.p95)} ${ms(sb.max)}`);
    const extra = sb.median / sa.median - 1;
    const ok = extra <= TARGET_EXTRA;
    log(`\nThe parent's extra CPU (median): ${(extra * 100).toFixed(1)} % (target ≤ ${TARGET_EXTRA * 100} %): ${verdict(ok)}`);
    return ok ? 0 : 1;
  } finally {
    await link.close();
    await services.lock.close();
    await db.$disconnect();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
