/**
 * npm run bench:load [-- --sessions 200 --viewers 1000 --seconds 20 --rate 5 --ramp 2 --soak <minutes> --build]
 *
 * Parley under load as N instances run it, every piece a process of its own on 127.0.0.1:
 * - one PostgreSQL (the embedded binaries, in a temporary directory), started by this process;
 * - two instances of the production build (`npm start`'s launcher, Next.js) on it, with
 *   DATABASE_URL, as behind a load balancer: A and B;
 * - the model provider (bench/provider.ts): an OpenAI-compatible server over HTTP that
 *   streams text deltas at a fixed rate per session, each stamped with when it was written;
 * - the clients (bench/stream-client.ts), two processes: for every session one member's
 *   live stream on the instance that does NOT run it (so each delta crosses PostgreSQL)
 *   and its share viewers' streams spread over both instances.
 * This process signs up, creates and shares the sessions and prompts them through tRPC
 * over HTTP, half on A and half on B (each runs the sessions prompted on it), and reads the
 * instances' memory and CPU from /proc and the database's connections from pg_stat_activity.
 *
 * A round: every stream connects, every session is prompted (over --ramp s), the provider
 * holds each answer until all are open so that all stream at once, and the round ends when
 * every stream has seen its session go idle. A short warm-up round comes first. With
 * --soak, rounds follow each other for that many minutes, and the memory growth is measured
 * from the end of the first round to the end of the last.
 *
 * Figures: added latency, provider writes a delta → a client reads it (p50/p99/max over
 * every delta of every stream, member and viewer, same-instance and cross-instance);
 * deltas lost or received twice; errors (prompts refused, streams cut); each instance's
 * RSS and CPU; the database's connections. PASS needs p99 ≤ 500 ms, 0 lost, 0 errors.
 * Bounded: at most 2,000 sessions, 10,000 viewers, 120 s per round, 240 minutes of soak.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { clusterDirectory } from "../server/db/cluster";
import { type EmbeddedDatabase, startEmbeddedDatabase } from "../server/db/embedded";
import { Api, DIST_DIR, forkBench, freePort, next, signUp, startApp, stopApp, waitForServer } from "./app";
import { numberArg, percentile, runBench, verdict } from "./figures";
import { cpuMs, memory } from "./process-tree";
import type { ClientResult, Watch } from "./stream-client";

const SESSIONS = Math.min(2_000, numberArg("sessions", 200, { integer: true }));
const VIEWERS = Math.min(10_000, numberArg("viewers", 1_000, { integer: true }));
const SECONDS = Math.min(60, numberArg("seconds", 20));
/**
 * Deltas per second per session. 5 by default: 200 sessions then make 1,000 deltas/s,
 * which reach 1,200 live streams as 6,000 SSE events/s — on two cores shared with the
 * provider, the clients and PostgreSQL, about what they can carry (each delta costs the
 * instances and PostgreSQL together about 0.8 ms, the clients 0.2 ms: the bench prints both).
 */
const RATE = Math.min(200, numberArg("rate", 5));
const RAMP_MS = numberArg("ramp", 2) * 1_000;
const SOAK_MINUTES = process.argv.includes("--soak") ? Math.min(240, numberArg("soak", 10)) : 0;
/** A round that has not ended by then failed (its streams counted as cut). */
const ROUND_TIMEOUT_MS = 120_000;
const TARGET = { p99: 500 };

const log = (line = "") => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (n: number) => `${n.toFixed(0)} MB`;

interface Instance {
  name: "A" | "B";
  url: string;
  app: ChildProcess;
  api: Api;
}

interface Session {
  id: string;
  shareId: string;
  /** The instance that runs it (it is prompted there). */
  runner: Instance;
}

interface Round {
  result: ClientResult;
  errors: string[];
  elapsed: number;
  /** Peak RSS of each instance's Next.js server during the round, MB. */
  peakRss: Record<string, number>;
  /** CPU of each instance's process tree, and of PostgreSQL, during the round (ms). */
  cpu: Record<string, number>;
  /** The most connections the database had at once, by application_name. */
  connections: Map<string, number>;
  peakConnections: number;
}

/** The connections of the database, by application name (PostgreSQL's own processes left out). */
async function connections(admin: pg.Client): Promise<Map<string, number>> {
  const rows = await admin.query<{ name: string; n: number }>(
    "SELECT coalesce(nullif(application_name, ''), '(pool)') AS name, count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1",
  );
  return new Map(rows.rows.map((r) => [r.name, r.n]));
}

function merge(results: ClientResult[]): ClientResult {
  return {
    latencies: results.flatMap((r) => r.latencies),
    emitted: results.flatMap((r) => r.emitted),
    lost: results.reduce((n, r) => n + r.lost, 0),
    duplicates: results.reduce((n, r) => n + r.duplicates, 0),
    events: results.reduce((n, r) => n + r.events, 0),
    failed: results.reduce((n, r) => n + r.failed, 0),
    errors: results.flatMap((r) => r.errors),
  };
}

/**
 * Who watches what: a session's member stream on the instance that does not run it, its
 * share viewers alternating between the two (starting with the other one), so that each
 * instance serves half the streams and most of them get their deltas through PostgreSQL.
 */
function streamsOf(sessions: Session[], instances: Instance[]): Map<Instance, Watch[]> {
  const out = new Map<Instance, Watch[]>(instances.map((i) => [i, []]));
  const other = (i: Instance) => instances.find((x) => x !== i) ?? i;
  sessions.forEach((session, index) => {
    const away = other(session.runner);
    out.get(away)?.push({ url: `${away.url}/api/sessions/${session.id}/events`, signedIn: true });
    const viewers = Math.floor(VIEWERS / sessions.length) + (index < VIEWERS % sessions.length ? 1 : 0);
    for (let v = 0; v < viewers; v++) {
      const on = v % 2 === 0 ? away : session.runner;
      out.get(on)?.push({ url: `${on.url}/api/share/${session.shareId}/events`, signedIn: false });
    }
  });
  return out;
}

async function round(
  sessions: Session[],
  instances: Instance[],
  clients: Map<Instance, ChildProcess>,
  provider: ChildProcess,
  admin: pg.Client,
  postgresPid: number,
  deltas: number,
): Promise<Round> {
  provider.send({ deltas, rate: RATE, together: sessions.length });
  await next(provider, "ok");
  const streams = streamsOf(sessions, instances);
  const ready = [...clients.values()].map((c) => next(c, "ready"));
  const done = [...clients.values()].map((c) => next<{ result: ClientResult }>(c, "result"));
  for (const [instance, client] of clients) client.send({ watch: streams.get(instance), deltas });
  await Promise.all(ready);
  await sleep(300);

  const pids: Record<string, number> = Object.fromEntries(instances.map((i) => [i.name, i.app.pid ?? 0]));
  /** Whose CPU is counted: each instance's process tree (launcher, Next.js, tools), PostgreSQL's, and on the same cores the provider's and the clients'. */
  const trees: Record<string, number> = {
    ...pids,
    PostgreSQL: postgresPid,
    provider: provider.pid ?? 0,
    ...Object.fromEntries([...clients.values()].map((c, i) => [`clients ${i + 1}`, c.pid ?? 0])),
  };
  const cpu0: Record<string, number> = Object.fromEntries(Object.entries(trees).map(([name, pid]) => [name, cpuMs(pid)]));
  const peakRss: Record<string, number> = Object.fromEntries(instances.map((i) => [i.name, 0]));
  const peakByName = new Map<string, number>();
  let peakConnections = 0;
  const sample = async () => {
    for (const [name, pid] of Object.entries(pids)) peakRss[name] = Math.max(peakRss[name] ?? 0, memory(pid).serverRss);
    const now = await connections(admin);
    peakConnections = Math.max(peakConnections, [...now.values()].reduce((a, b) => a + b, 0));
    for (const [name, n] of now) peakByName.set(name, Math.max(peakByName.get(name) ?? 0, n));
  };
  const sampler = setInterval(() => void sample().catch((error: unknown) => log(`  (could not sample: ${String(error)})`)), 1_000);

  const t0 = performance.now();
  const errors: string[] = [];
  await Promise.all(
    sessions.map(async (session, i) => {
      await sleep((i * RAMP_MS) / sessions.length);
      await session.runner.api.prompt(session.id).catch((error: unknown) => errors.push(`prompt on ${session.runner.name}: ${String(error)}`));
    }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the round did not end within ${ROUND_TIMEOUT_MS / 1000} s`)), ROUND_TIMEOUT_MS)));
  const results = await Promise.race([Promise.all(done), timeout]).finally(() => clearTimeout(timer));
  const elapsed = performance.now() - t0;
  await sleep(500);
  clearInterval(sampler);
  await sample();
  const cpu = Object.fromEntries(Object.entries(cpu0).map(([name, before]) => [name, cpuMs(trees[name] ?? 0) - before]));
  return { result: merge(results.map((r) => r.result)), errors, elapsed, peakRss, cpu, connections: peakByName, peakConnections };
}

function rssNow(instances: Instance[]): Record<string, number> {
  return Object.fromEntries(instances.map((i) => [i.name, memory(i.app.pid ?? 0).serverRss]));
}

async function main(): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "parley-bench-load-"));
  const provider = forkBench("provider.ts");
  const apps: ChildProcess[] = [];
  const clients = new Map<Instance, ChildProcess>();
  let database: EmbeddedDatabase | undefined;
  let admin: pg.Client | undefined;
  try {
    log(`Starting PostgreSQL (the embedded binaries) in ${dir} …`);
    database = await startEmbeddedDatabase({ dataDir: dir });
    const postgresPid = Number(readFileSync(path.join(clusterDirectory(dir), "postmaster.pid"), "utf8").split("\n")[0]);
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const maxConnections = (await admin.query<{ max_connections: string }>("SHOW max_connections")).rows[0]?.max_connections;
    const { port: providerPort } = await next<{ port: number }>(provider, "port");
    const env = {
      DATABASE_URL: database.url,
      OPENAI_BASE_URL: `http://127.0.0.1:${providerPort}/v1`,
      OPENAI_API_KEY: "bench",
      PARLEY_MODEL: "compatible/bench",
      PARLEY_SMALL_MODEL: "compatible/bench",
      // Every client comes from 127.0.0.1, one user follows every session: lift the stream caps.
      PARLEY_LIVE_STREAMS_PER_USER: "100000",
      PARLEY_LIVE_STREAMS_PER_ADDRESS: "100000",
      PARLEY_LIVE_STREAMS_PER_SHARE: "100000",
    };
    const instances: Instance[] = [];
    // One after the other: the first builds the app when there is no build yet.
    for (const name of ["A", "B"] as const) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const app = startApp(dir, port, env, instances.length ? { build: false } : {});
      apps.push(app);
      await waitForServer(`${url}/api/health`, app, 900_000);
      instances.push({ name, url, app, api: new Api(url, "") });
    }
    const [a] = instances as [Instance, Instance];
    const { cookie } = await signUp(a.url);
    for (const instance of instances) instance.api = new Api(instance.url, cookie);
    const projectId = await a.api.projectId();

    log(`Creating and sharing ${SESSIONS} sessions …`);
    const sessions: Session[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const runner = instances[i % 2] as Instance;
      const id = await runner.api.createSession(projectId, `Load ${i}`);
      sessions.push({ id, shareId: await runner.api.share(id), runner });
    }
    for (const instance of instances) {
      const client = forkBench("stream-client.ts", [instance.url, cookie]);
      await next(client, "started");
      clients.set(instance, client);
    }

    const deltas = Math.round(RATE * SECONDS);
    log(`\nbench:load — Node ${process.version}, ${os.cpus().length} cores; two instances of the production build (${DIST_DIR}) on one PostgreSQL`);
    log(`(max_connections ${maxConnections}), a provider over HTTP and two client processes, all on 127.0.0.1.`);
    log(`${SESSIONS} sessions × ${RATE} deltas/s for ${SECONDS} s (${(SESSIONS * deltas).toLocaleString("en")} deltas), prompted half on A, half on B, all streaming at once;`);
    log(`each watched by a member on the other instance, plus ${VIEWERS.toLocaleString("en")} share viewers spread over both: ${(SESSIONS + VIEWERS).toLocaleString("en")} live streams.`);
    log("Latency: the provider writes a delta → a client process reads it. It includes the provider's HTTP stream, the AI SDK, Parley's");
    log("processor and bus, the PostgreSQL bridge (LISTEN/NOTIFY) for streams on the other instance, SSE and the loopback hops, on");
    log("the same cores as everything else (provider, clients, PostgreSQL).\n");

    log("Warm-up round (2 s of deltas) …");
    await round(sessions, instances, clients, provider, admin, postgresPid, Math.max(1, Math.round(RATE * 2)));
    await sleep(2_000);
    const before = rssNow(instances);

    const rounds: Round[] = [];
    const soakUntil = Date.now() + SOAK_MINUTES * 60_000;
    let afterFirst: Record<string, number> = {};
    do {
      const r = await round(sessions, instances, clients, provider, admin, postgresPid, deltas);
      rounds.push(r);
      const sorted = [...r.result.latencies].sort((x, y) => x - y);
      if (SOAK_MINUTES) {
        log(`  round ${rounds.length}: p99 ${percentile(sorted, 99).toFixed(1)} ms, lost ${r.result.lost}, errors ${r.errors.length + r.result.failed}, RSS ${Object.entries(rssNow(instances)).map(([n, v]) => `${n} ${mb(v)}`).join(", ")}`);
      }
      if (rounds.length === 1) {
        await sleep(2_000);
        afterFirst = rssNow(instances);
      }
    } while (Date.now() < soakUntil);
    await sleep(2_000);
    const after = rssNow(instances);

    const all = merge(rounds.map((r) => r.result));
    const sorted = [...all.latencies].sort((x, y) => x - y);
    const p99 = percentile(sorted, 99);
    const errors = rounds.reduce((n, r) => n + r.errors.length, 0) + all.failed;
    const last = rounds.at(-1) as Round;
    let ok = true;
    const line = (text: string, pass?: boolean) => {
      if (pass !== undefined) ok &&= pass;
      log(`  ${text}${pass === undefined ? "" : `: ${verdict(pass)}`}`);
    };
    log(`\n${rounds.length} round(s)${SOAK_MINUTES ? ` over ${SOAK_MINUTES} min of soak` : ""}, the last in ${(last.elapsed / 1000).toFixed(1)} s:`);
    line(`added latency p50 ${percentile(sorted, 50).toFixed(1)} / p99 ${p99.toFixed(1)} / max ${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms over ${sorted.length.toLocaleString("en")} deltas received (target p99 ≤ ${TARGET.p99})`, p99 <= TARGET.p99);
    line(`deltas lost ${all.lost.toLocaleString("en")}, received twice ${all.duplicates.toLocaleString("en")} (${all.events.toLocaleString("en")} SSE text events)`, all.lost === 0 && all.duplicates === 0);
    line(`errors ${errors} (prompts refused: ${rounds.reduce((n, r) => n + r.errors.length, 0)}, streams cut or refused: ${all.failed})`, errors === 0);
    for (const e of [...rounds.flatMap((r) => r.errors), ...all.errors].slice(0, 5)) line(`  ${e}`);
    for (const instance of instances) {
      const growth = SOAK_MINUTES ? (after[instance.name] ?? 0) - (afterFirst[instance.name] ?? 0) : (after[instance.name] ?? 0) - (before[instance.name] ?? 0);
      line(
        `instance ${instance.name}: Next.js RSS ${mb(before[instance.name] ?? 0)} before, peak ${mb(Math.max(...rounds.map((r) => r.peakRss[instance.name] ?? 0)))}, ${mb(after[instance.name] ?? 0)} after: growth ${growth >= 0 ? "+" : ""}${mb(growth)}${SOAK_MINUTES ? " (end of the first round → end of the last)" : ""}; CPU ${((last.cpu[instance.name] ?? 0) / 1000).toFixed(1)} s in the last round`,
      );
    }
    const serverCpu = ["A", "B", "PostgreSQL"].reduce((n, name) => n + (last.cpu[name] ?? 0), 0);
    line(`PostgreSQL CPU ${((last.cpu.PostgreSQL ?? 0) / 1000).toFixed(1)} s in the last round; instances and PostgreSQL together ${(serverCpu / Math.max(1, SESSIONS * deltas)).toFixed(3)} ms per streamed delta (the ${SESSIONS} prompts' own cost included)`);
    const others = Object.entries(last.cpu).filter(([name]) => !["A", "B", "PostgreSQL"].includes(name));
    line(`  on the same cores: ${others.map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`).join(", ")} (${os.cpus().length} cores × ${(last.elapsed / 1000).toFixed(1)} s = ${((os.cpus().length * last.elapsed) / 1000).toFixed(1)} s of CPU in the round)`);
    const byName = [...last.connections].sort((x, y) => y[1] - x[1]).map(([name, n]) => `${name} ${n}`).join(", ");
    line(`database connections: peak ${Math.max(...rounds.map((r) => r.peakConnections))} of max_connections ${maxConnections} (by application: ${byName})`);
    log(`\n${ok ? "PASS" : "FAIL"}`);
    return ok ? 0 : 1;
  } finally {
    for (const client of clients.values()) client.kill();
    provider.kill();
    // Both instances before the database they use.
    await Promise.all(apps.map((app) => stopApp(app)));
    await admin?.end();
    await database?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
