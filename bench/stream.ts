/**
 * npm run bench:stream [-- --seconds 10 --rate 50 --loads 50,200 --ramp 1 --runs 30 --build]
 *
 * The streaming hot path as users pay for it, in three processes besides this one:
 * - the app: the production build (`npm start`'s launcher, Next.js, the embedded
 *   PostgreSQL), its model being `compatible/bench` at OPENAI_BASE_URL;
 * - the provider (bench/provider.ts): an OpenAI-compatible server over HTTP that answers
 *   with text deltas at a fixed rate per stream, each stamped with the moment it was sent;
 * - the clients (bench/stream-client.ts): one SSE connection per session, as browsers.
 * This process signs up through the app, creates sessions and prompts them through tRPC
 * over HTTP, and reads the app's CPU and memory from /proc.
 *
 * A load's prompts are sent over --ramp seconds; the provider holds each answer's first
 * delta until all of the load's streams are open, then they all stream at once (each on
 * its own schedule): the load is N concurrent streams, and what it cost to start them is
 * the fixed cost measured first.
 *
 * Figures, per load:
 * - added latency: provider writes a delta → a client reads it (p50, p99, max), which
 *   covers the provider's HTTP stream, the AI SDK, Parley's processor, bus and SSE, and
 *   both loopback hops; deltas lost or received twice;
 * - server CPU: the app's whole process tree (launcher, Next.js, PostgreSQL and its
 *   backends, git for snapshots), per streamed delta;
 * - memory: the Next.js server's peak RSS and the tree's peak PSS.
 * First, the fixed CPU of one prompt (one session, 10 deltas, title request included:
 * the session's first prompt), median of --runs after a warm-up.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Api, forkBench, next, signedIn, startAppWithProvider, stopApp } from "./app";
import { numberArg, percentile, runBench, stats, verdict } from "./figures";
import { cpuByName, cpuMs, memoryPeak } from "./process-tree";
import type { ClientResult } from "./stream-client";

const SECONDS = numberArg("seconds", 10);
const RATE = numberArg("rate", 50);
/** Fixed-cost runs: /proc counts CPU in 10 ms ticks per process, so one run's figure is coarse; their trimmed mean is not. */
const RUNS = numberArg("runs", 30, { integer: true });
/** The warm-up load: this many sessions streaming for 2 s. */
const WARMUP_SESSIONS = 50;
const LOADS = (process.argv.includes("--loads") ? (process.argv[process.argv.indexOf("--loads") + 1] ?? "") : "50,200")
  .split(",")
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
/** Prompts of a load start spread over this long, as users' prompts would be, not in one instant. */
const RAMP_MS = numberArg("ramp", 1, { integer: false }) * 1_000;

const TARGETS = {
  fixedCpuMs: 50,
  cpuPerDeltaMs: 0.25,
  rssMb: 400,
  latency: new Map([
    [50, { p50: 10, p99: 50 }],
    [200, { p99: 200 }],
  ]),
};

const log = (line = "") => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The mean without the lowest and highest fifth of the samples. */
function trimmedMean(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length / 5);
  const kept = sorted.slice(cut, sorted.length - cut);
  return kept.reduce((sum, x) => sum + x, 0) / Math.max(1, kept.length);
}

interface Run {
  cpu: number;
  /** The most provider streams open at once. */
  peak: number;
  /** CPU ms of the provider's and the clients' processes (they share the machine's cores with the app). */
  others: { provider: number; clients: number };
  /** CPU ms by process name (node, postgres, git…). */
  split: Map<string, number>;
  result: ClientResult;
  elapsed: number;
  /** How long the CPU was counted for (ms). */
  window: number;
  memory: { serverRss: number; treePss: number };
}

/** N new sessions, followed by the clients, prompted (spread over `ramp` ms); CPU of the app tree until every run is idle and 500 ms more. */
async function run(api: Api, projectId: string, clients: ChildProcess, provider: ChildProcess, appPid: number, n: number, deltas: number, ramp: number): Promise<Run> {
  // A load's streams start together once all are open (bench/provider.ts), so that n of them do run at once.
  provider.send({ deltas, rate: RATE, together: n });
  await next(provider, "ok");
  const sessions: string[] = [];
  for (let i = 0; i < n; i++) sessions.push(await api.createSession(projectId));
  const ready = next(clients, "ready");
  const done = next<{ result: ClientResult }>(clients, "result");
  clients.send({ follow: sessions, deltas });
  await ready;
  await sleep(300);
  const memory = memoryPeak(appPid);
  const split0 = cpuByName(appPid);
  const cpu0 = cpuMs(appPid);
  const provider0 = cpuMs(provider.pid ?? 0);
  const clients0 = cpuMs(clients.pid ?? 0);
  const t0 = performance.now();
  await Promise.all(
    sessions.map(async (id, i) => {
      await sleep((i * ramp) / n);
      await api.prompt(id);
    }),
  );
  const { result } = await done;
  const elapsed = performance.now() - t0;
  // Work that follows the run (the title written, the last flush) belongs to it.
  await sleep(500);
  const window = performance.now() - t0;
  const split = new Map([...cpuByName(appPid)].map(([name, ms]) => [name, ms - (split0.get(name) ?? 0)]));
  const others = { provider: cpuMs(provider.pid ?? 0) - provider0, clients: cpuMs(clients.pid ?? 0) - clients0 };
  const peakReply = next<{ peak: number }>(provider, "peak");
  provider.send({ peak: true });
  const { peak } = await peakReply;
  return { cpu: cpuMs(appPid) - cpu0, peak, others, split, result, elapsed, window, memory: memory.stop() };
}

async function main(): Promise<number> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "parley-bench-stream-"));
  const provider = forkBench("provider.ts");
  let app: ChildProcess | undefined;
  let clients: ChildProcess | undefined;
  try {
    const { port: providerPort } = await next<{ port: number }>(provider, "port");
    const started = await startAppWithProvider(dataDir, providerPort, "bench", {
      // One user follows every session from one address: lift the caps on open streams.
      PARLEY_LIVE_STREAMS_PER_USER: "10000",
      PARLEY_LIVE_STREAMS_PER_ADDRESS: "10000",
    });
    app = started.app;
    const base = started.base;
    const appPid = app.pid ?? 0;
    const { cookie, api, projectId } = await signedIn(base, app);
    clients = forkBench("stream-client.ts", [base, cookie]);
    await next(clients, "started");

    log(`\nbench:stream — Node ${process.version}, ${os.cpus().length} cores; the app's production build (${appPid}) with its embedded PostgreSQL,`);
    log("a provider over HTTP and the SSE clients each in their own process. Latency: provider writes a delta → a client reads it.");
    log("Server CPU: the app's process tree (launcher, Next.js, PostgreSQL, git), from /proc.\n");

    let ok = true;
    const line = (text: string, pass?: boolean) => {
      if (pass !== undefined) ok &&= pass;
      log(`  ${text}${pass === undefined ? "" : `: ${verdict(pass)}`}`);
    };

    // The fixed cost of a prompt: a new session's first prompt (title request included), 10
    // deltas. What the idle server uses meanwhile (PostgreSQL's background work, timers) is
    // measured apart and taken off; /proc counts in 10 ms ticks, so the figure is the mean of
    // the runs without the fastest and slowest fifth.
    // Warm-up: a short load, then two prompts (the JIT, PostgreSQL's caches and pools are
    // then as on a server that has been working; its memory is counted in the loads' peaks).
    await run(api, projectId, clients, provider, appPid, WARMUP_SESSIONS, Math.round(RATE * 2), RAMP_MS);
    for (let i = 0; i < 2; i++) await run(api, projectId, clients, provider, appPid, 1, 10, 0);
    // Each run is followed by as long a pause, whose CPU (the idle server's own: timers,
    // PostgreSQL's background work) is taken off that run's.
    const fixed: Run[] = [];
    const samples: number[] = [];
    const idleRates: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await run(api, projectId, clients, provider, appPid, 1, 10, 0);
      const idle0 = cpuMs(appPid);
      const t0 = performance.now();
      await sleep(r.window);
      const idle = cpuMs(appPid) - idle0;
      idleRates.push(idle / (performance.now() - t0));
      fixed.push(r);
      samples.push(r.cpu - idle);
    }
    const idlePerMs = stats(idleRates).median;
    const fixedMs = trimmedMean(samples);
    const names = [...new Set(fixed.flatMap((r) => [...r.split.keys()]))];
    const byProcess = names.map((name) => `${name} ${trimmedMean(fixed.map((r) => r.split.get(name) ?? 0)).toFixed(0)} ms`).join(", ");
    log(`1 session, 10 deltas (a new session's first prompt, with its title request), ${RUNS} runs after a warm-up (${WARMUP_SESSIONS} sessions streaming for 2 s, then 2 prompts):`);
    line(`fixed server CPU per prompt: ${fixedMs.toFixed(1)} ms (target ≤ ${TARGETS.fixedCpuMs})`, fixedMs <= TARGETS.fixedCpuMs);
    line(`  each run's CPU minus that of an equally long idle pause after it (median ${(idlePerMs * 1000).toFixed(1)} ms/s; runs of ${(stats(fixed.map((r) => r.window)).median / 1000).toFixed(2)} s)`);
    line(`  by process (idle included): ${byProcess}`);

    for (const n of LOADS) {
      const deltas = Math.round(RATE * SECONDS);
      const r = await run(api, projectId, clients, provider, appPid, n, deltas, RAMP_MS);
      const sorted = [...r.result.latencies].sort((a, b) => a - b);
      const p50 = percentile(sorted, 50);
      const p99 = percentile(sorted, 99);
      const max = sorted.at(-1) ?? Number.NaN;
      const received = sorted.length;
      const perDelta = (r.cpu - n * fixedMs) / Math.max(1, received);
      // Steady state: deltas sent once every session had been prompted and had a second to start.
      const firstEmit = r.result.emitted.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
      const steady = r.result.latencies.filter((_, i) => (r.result.emitted[i] ?? 0) >= firstEmit + 1_000).sort((a, b) => a - b);
      const target = TARGETS.latency.get(n);
      log(`\n${n} sessions × ${RATE} deltas/s for ${SECONDS} s (${(n * deltas).toLocaleString("en")} deltas; prompts sent over ${RAMP_MS / 1000} s, streams held until all ${n} were open, then run at once), ${(r.elapsed / 1000).toFixed(1)} s:`);
      line(`streams open at once at the provider: ${r.peak} of ${n}`, r.peak === n);
      const latency = `added latency p50 ${p50.toFixed(1)} / p99 ${p99.toFixed(1)} / max ${max.toFixed(1)} ms`;
      if (target) {
        const pass = (target.p50 === undefined || p50 <= target.p50) && p99 <= target.p99;
        line(`${latency} (target${target.p50 === undefined ? "" : ` p50 ≤ ${target.p50}`} p99 ≤ ${target.p99})`, pass);
      } else line(latency);
      line(`  after the first second (the ${n} streams' start): p50 ${percentile(steady, 50).toFixed(1)} / p99 ${percentile(steady, 99).toFixed(1)} / max ${(steady.at(-1) ?? Number.NaN).toFixed(1)} ms (${steady.length.toLocaleString("en")} deltas)`);
      line(`deltas lost ${r.result.lost}, received twice ${r.result.duplicates}; ${r.result.events.toLocaleString("en")} SSE text events carried them`, r.result.lost === 0 && r.result.duplicates === 0);
      const cpuLine = `server CPU ${(r.cpu / 1000).toFixed(1)} s = ${n} × ${fixedMs.toFixed(1)} ms fixed + ${perDelta.toFixed(3)} ms per delta (target ≤ ${TARGETS.cpuPerDeltaMs})`;
      if (n === 50) line(cpuLine, perDelta <= TARGETS.cpuPerDeltaMs);
      else line(cpuLine);
      line(`  (on the same cores: the provider ${(r.others.provider / 1000).toFixed(2)} s, the clients ${(r.others.clients / 1000).toFixed(2)} s)`);
      line(`  by process: ${[...r.split].filter(([, ms]) => ms > 0).map(([name, ms]) => `${name} ${(ms / 1000).toFixed(2)} s`).join(", ")}`);
      const mem = `memory peak: Next.js server RSS ${r.memory.serverRss.toFixed(0)} MB, whole tree PSS ${r.memory.treePss.toFixed(0)} MB`;
      if (n === 50) line(`${mem} (target RSS ≤ ${TARGETS.rssMb})`, r.memory.serverRss <= TARGETS.rssMb);
      else line(mem);
    }
    log(`\n${ok ? "PASS" : "FAIL"}`);
    return ok ? 0 : 1;
  } finally {
    clients?.kill();
    provider.kill();
    if (app) await stopApp(app);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
