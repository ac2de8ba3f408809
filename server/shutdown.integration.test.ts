import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import { databaseUrl, makeTeam, testDb } from "../test/db";
import { parleyError } from "../test/fixtures";
import { testServices } from "../test/runtime";
import { Bus, type Envelope, is } from "./bus/bus";
import type { Bridge } from "./bus/postgres";
import { loadConfig } from "./config";
import { createDb } from "./db/client";
import type { Runtime } from "./runtime";
import { Session } from "./session";
import { RunLock } from "./session/lock";
import { messageFromRow } from "./session/rows";
import { Handover, SHUTDOWN_REASON } from "./session/runner";
import { drain } from "./shutdown";

/**
 * Draining one instance, in process (the signal, the launcher and the other instance taking
 * over run as real processes in the two-instance suite, e2e/instances/shutdown.spec.ts).
 */

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A model that streams `n` text deltas, one every `everyMs`, until it is aborted. */
function slowModel(n: number, everyMs: number): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async ({ abortSignal }) => {
      let i = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "text-start", id: "t" });
          const next = () => {
            if (abortSignal?.aborted) return;
            if (i === n) {
              controller.enqueue({ type: "text-end", id: "t" });
              controller.enqueue({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage });
              controller.close();
              return;
            }
            controller.enqueue({ type: "text-delta", id: "t", delta: `${i++} ` });
            timer = setTimeout(next, everyMs);
          };
          next();
          abortSignal?.addEventListener("abort", () => {
            clearTimeout(timer);
            controller.error(abortSignal.reason);
          });
        },
      });
      return { stream };
    },
  });
}

const opened: { close(): Promise<unknown> }[] = [];
afterAll(async () => {
  await Promise.allSettled(opened.map((o) => o.close()));
});

/** A runtime of its own (its database client and run lock are closed by the drain), with a model and a bridge that counts. */
async function instance(model: MockLanguageModelV4) {
  const bus = new Bus();
  const db = createDb(databaseUrl(), { max: 2 });
  const lock = new RunLock(databaseUrl());
  opened.push({ close: () => db.$disconnect() }, lock);
  const services = testServices(bus, {
    db,
    lock,
    models: { resolve: (ref) => ({ ref, language: model, limit: { context: 100_000, output: 4_000 }, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }) },
    settings: { compaction: { auto: false, prune: false } },
  });
  const bridge = { flushed: 0, closed: 0, connected: true, flush: async () => void bridge.flushed++, close: async () => void bridge.closed++ } satisfies Bridge & Record<string, unknown>;
  let timersStopped = 0;
  const rt: Runtime = { config: loadConfig({ DATABASE_URL: databaseUrl() }), services, bridge, stopTimers: () => void timersStopped++ };
  const team = await makeTeam({ services });
  const handovers: Envelope[] = [];
  bus.subscribeAll((event) => (is(event, Handover) ? handovers.push(event) : undefined));
  return { rt, team, bridge, handovers, timers: () => timersStopped };
}

async function messages(sessionId: string) {
  return (await testDb().message.findMany({ where: { sessionId }, orderBy: { id: "asc" } })).map((row) => messageFromRow(row));
}

describe("drain (graceful shutdown of an instance)", () => {
  it("refuses new work at once, lets a running turn finish within the grace period, then closes everything", async () => {
    const { rt, team, bridge, timers } = await instance(slowModel(10, 30));
    const session = await Session.create(team.ctx, { projectId: team.projectId, title: "Finishes" });
    await Session.prompt(team.ctx, { sessionId: session.id, parts: [{ type: "text", text: "go" }] });
    const logged: string[] = [];
    const drained = drain(rt, 5_000, (line) => logged.push(line));
    const refused = await parleyError(Promise.resolve().then(() => Session.assertAccepting(team.ctx)), "UNAVAILABLE");
    expect(refused.message).toContain("restarting");
    expect(timers()).toBe(1);

    expect(await drained).toBe(true);
    const [, answer] = await messages(session.id);
    expect(answer?.role === "assistant" && answer.error).toBeFalsy();
    expect(answer?.time).toHaveProperty("completed");
    expect(rt.services.runners.size).toBe(0);
    expect(bridge).toMatchObject({ flushed: 1, closed: 1 });
    expect(logged[0]).toContain("1 turn(s) running");
  });

  it("stops a turn that outlasts the grace period, saying why, and hands the prompt queued behind it to another instance", async () => {
    const { rt, team, handovers } = await instance(slowModel(1_000, 20));
    const session = await Session.create(team.ctx, { projectId: team.projectId, title: "Outlasts" });
    await Session.prompt(team.ctx, { sessionId: session.id, parts: [{ type: "text", text: "a long one" }] });
    await expect.poll(async () => (await messages(session.id)).length).toBe(2);
    // Asked while the turn runs: queued for its runner.
    await Session.prompt(team.ctx, { sessionId: session.id, parts: [{ type: "text", text: "and then this" }] });

    const started = Date.now();
    expect(await drain(rt, 300, () => undefined)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    const [, stopped, queued] = await messages(session.id);
    expect(stopped?.role === "assistant" && stopped.error).toEqual({ name: "AbortedError", message: SHUTDOWN_REASON });
    // Not dropped with the abort (as a user's stop would), not answered here: handed over.
    expect(queued?.role).toBe("user");
    expect(handovers.map((e) => e.scope)).toEqual([{ teamId: team.teamId, sessionId: session.id }]);
    const row = await testDb().session.findUniqueOrThrow({ where: { id: session.id } });
    expect(row.status).toBe("idle");
    const elsewhere = new RunLock(databaseUrl());
    opened.push(elsewhere);
    expect(await elsewhere.unlocked([session.id])).toEqual([session.id]);
  });
});
