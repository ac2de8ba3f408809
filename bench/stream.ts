/**
 * npm run bench:stream [-- --sessions 50 --rate 20]
 *
 * N sessions stream at once from the built-in offline model at a fixed token rate,
 * through the real prompt loop, processor, batched writer, bus + PostgreSQL bridge and
 * SSE encoding, to SSE clients in a separate process. Prints the latency added between
 * the model emitting a text delta and a client receiving it (p50, p99), database writes
 * per streamed second, and this server process's CPU time per 1,000 streamed tokens.
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { Bus } from "../server/bus/bus";
import { bridge } from "../server/bus/postgres";
import { createDb } from "../server/db/client";
import { sseResponse } from "../server/http";
import { createOfflineModel } from "../server/provider/offline";
import { withActor } from "../server/services";
import { Session } from "../server/session";
import * as Prompt from "../server/session/prompt";
import { wire } from "../server/session/wire";
import { benchDatabase, benchModels, benchServices, benchSettings, benchWorkspace } from "./database";
import { numberArg } from "./figures";

const SESSIONS = numberArg("sessions", 50);
const RATE = numberArg("rate", 20); // tokens per second per session

const now = () => performance.timeOrigin + performance.now();
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** Records when the model emits each text delta, per session marker. */
function timed(model: LanguageModelV4, emitted: Map<string, number[]>): LanguageModelV4 {
  return {
    ...model,
    specificationVersion: "v4",
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => model.doGenerate(options),
    async doStream(options: LanguageModelV4CallOptions) {
      const result = await model.doStream(options);
      const text = JSON.stringify(options.prompt.filter((m) => m.role === "user").at(-1) ?? "");
      const marker = /\[bench (ses_\w+)\]/.exec(text)?.[1] ?? "unknown";
      const times = emitted.get(marker) ?? [];
      emitted.set(marker, times);
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
          transform(chunk, controller) {
            if (chunk.type === "text-delta") times.push(now());
            controller.enqueue(chunk);
          },
        }),
      );
      return { ...result, stream };
    },
  };
}

async function main() {
  const database = await benchDatabase("stream");
  const url = database.url;
  // The project directory and tool output of the run.
  const dir = mkdtempSync(path.join(os.tmpdir(), "parley-bench-stream-data-"));
  const db = createDb(url, { max: 20 });
  const bus = new Bus();
  const link = await bridge(bus, url, { encode: wire });
  const emitted = new Map<string, number[]>();
  const model = timed(createOfflineModel({ tokensPerSecond: RATE }), emitted);
  const services = await benchServices(db, url, {
    bus,
    models: benchModels(model),
    settings: benchSettings(dir),
  });
  const { runners, lock } = services;
  const workspace = await benchWorkspace(db, path.join(dir, "project"));
  const ctx = withActor(services, workspace.actor);

  // The SSE endpoint: the same stream code as the Route Handler, on a plain HTTP server.
  const server = http.createServer((req, res) => {
    const sessionId = req.url?.split("/").at(-1) ?? "";
    const controller = new AbortController();
    req.on("close", () => controller.abort());
    const response = sseResponse(controller.signal, {
      subscribe: (send) => bus.subscribe({ teamId: workspace.actor.teamId, sessionId }, send),
    });
    res.writeHead(200, Object.fromEntries(response.headers));
    void (async () => {
      const reader = response.body?.getReader();
      if (!reader) return;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

  const sessions = [];
  // Named sessions: a default title would start a background title request to the same
  // (timed) model, whose deltas are never streamed to clients and would skew the pairing.
  for (let i = 0; i < SESSIONS; i++) sessions.push(await Session.create(ctx, { projectId: workspace.projectId, title: `bench stream ${i + 1}` }));
  const client = fork(path.join(import.meta.dirname, "stream-client.ts"), [base, ...sessions.map((s) => s.id)], {
    execArgv: ["--import", "tsx"],
  });
  await new Promise<void>((resolve) => client.once("message", () => resolve()));
  client.send({ go: true });
  await new Promise((resolve) => setTimeout(resolve, 300)); // let every client connect

  const stats = async () =>
    (
      await db.$queryRawUnsafe<{ writes: bigint; commits: bigint }[]>(
        "SELECT (tup_inserted + tup_updated + tup_deleted)::bigint AS writes, xact_commit::bigint AS commits FROM pg_stat_database WHERE datname = current_database()",
      )
    )[0];
  const before = await stats();
  const cpu = process.cpuUsage();
  const started = now();
  // The offline model's long answer: about 1,100 tokens in some 380 deltas.
  const prompt = "write a long answer";
  const arrivalsPromise = new Promise<Record<string, number[]>>((resolve) =>
    client.on("message", (message: { arrivals?: Record<string, number[]> }) => {
      if (message.arrivals) resolve(message.arrivals);
    }),
  );
  await Promise.all(sessions.map((s) => Prompt.prompt(ctx, { sessionId: s.id, parts: [{ type: "text", text: `${prompt} [bench ${s.id}]` }] })));
  await Promise.all(sessions.map((s) => runners.idle(s.id)));
  const elapsed = (now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await new Promise((resolve) => setTimeout(resolve, 200)); // pg_stat is updated asynchronously
  const after = await stats();
  const arrivals = await arrivalsPromise;

  const latencies: number[] = [];
  let deltas = 0;
  let lost = 0;
  for (const s of sessions) {
    const sent = emitted.get(s.id) ?? [];
    const got = arrivals[s.id] ?? [];
    deltas += sent.length;
    lost += Math.max(0, sent.length - got.length);
    for (let i = 0; i < Math.min(sent.length, got.length); i++) latencies.push((got[i] ?? 0) - (sent[i] ?? 0));
  }
  const texts = await db.part.findMany({ where: { sessionId: { in: sessions.map((s) => s.id) }, type: "text" }, select: { data: true } });
  const chars = texts.reduce((n, row) => n + String((row.data as { text?: unknown }).text ?? "").length, 0);
  const tokens = chars / 4;
  const writes = Number((after?.writes ?? 0n) - (before?.writes ?? 0n));
  const commits = Number((after?.commits ?? 0n) - (before?.commits ?? 0n));
  const cpuMs = (used.user + used.system) / 1000;

  const p99 = percentile(latencies, 99);
  console.log(`bench:stream — ${SESSIONS} sessions × one long answer at ${RATE} tokens/s each, on ${os.cpus().length} cores`);
  console.log(`  streamed: ${deltas} text deltas, ${Math.round(tokens)} tokens in ${elapsed.toFixed(1)} s (${lost} deltas not received)`);
  console.log(`  added latency, model emit → SSE client: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target p99 < 20 ms: ${p99 < 20 ? "PASS" : "FAIL"})`);
  console.log(`  database: ${(writes / elapsed).toFixed(0)} row writes/s, ${(commits / elapsed).toFixed(0)} commits/s while streaming`);
  console.log(`  server CPU: ${cpuMs.toFixed(0)} ms total, ${((cpuMs / tokens) * 1000).toFixed(1)} ms per 1,000 tokens`);

  client.kill();
  server.close();
  await link.close();
  await lock.close();
  await db.$disconnect();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(lost > 0 ? 1 : 0);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
