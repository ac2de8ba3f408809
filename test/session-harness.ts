import type { Agents } from "../server/agent/agent";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { LanguageModel } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { z } from "zod";
import { Bus, type Envelope } from "../server/bus/bus";
import type { Context, Services } from "../server/services";
import { Session } from "../server/session";
import * as Event from "../server/session/events";
import * as Background from "../server/session/background";
import { RunLock } from "../server/session/lock";
import { unanswered } from "../server/session/loop";
import { Runners } from "../server/session/runner";
import type { Part } from "../server/session/message";
import type { Prices } from "../server/session/usage";
import { define, type Tool } from "../server/tool/tool";
import { databaseUrl, makeTeam } from "./db";
import { offlineServices, testServices } from "./runtime";
import { titleModel } from "./title-model";
import { type FakeOpenAI, startFakeOpenAI } from "./fake-openai";

/** Shared pieces of the session loop/processor tests: scripted models, tools, deps. */

/**
 * Until the session is done: no runner here or anywhere (its run lock free), its
 * background work settled, and nothing left unanswered. `runners.idle` alone can return
 * in the moment a finishing runner has left but still holds the lock: a prompt sent then
 * is answered by the runner that restarts after the release, which `idle` had not waited for.
 */
export async function settled(s: Services, sessionId: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  // Each wait is bounded by the deadline, and a wait past it says what it waited for.
  const within = async (what: () => string, wait: Promise<unknown>) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), Math.max(0, end - Date.now()))));
    const outcome = await Promise.race([wait.then(() => "done" as const), late]);
    clearTimeout(timer);
    if (outcome === "late") throw new Error(`${sessionId} did not settle within ${timeoutMs} ms: ${what()}`);
  };
  for (;;) {
    await within(() => "its runner is still running", s.runners.idle(sessionId));
    await within(() => `its background work is still running (${Background.pending(sessionId).join(", ")})`, Background.settled(sessionId));
    if (!(await Runners.busy(s.lock, s.runners, sessionId)) && !(await unanswered(s, sessionId))) return;
    if (Date.now() > end) throw new Error(`${sessionId} is still running or unanswered`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Until the session's model is being asked: an assistant message newer than `after` (a
 * message id; ids ascend) exists. An abort from then on answers the prompt with the abort;
 * one that lands before the runner reached the model leaves the prompt unanswered.
 */
export async function asking(s: Services, sessionId: string, after = "", timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await s.db.message.findFirst({ where: { sessionId, role: "assistant", id: { gt: after } }, select: { id: true } }))) {
    if (Date.now() > end) throw new Error(`the model of ${sessionId} was never asked`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const PRICES: Prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/** V4 usage with no cache and no reasoning. */
export const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

export const finish = (unified: "stop" | "tool-calls" | "length" | "error" | "other" = "stop", input = 10, output = 5): LanguageModelV4StreamPart => ({
  type: "finish",
  finishReason: { unified, raw: unified },
  usage: usage(input, output),
});

/** A text part a model streams whole: its start, one delta each of `deltas`, its end. */
export const streamedText = (id: string, ...deltas: string[]): LanguageModelV4StreamPart[] => [
  { type: "text-start", id },
  ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id, delta })),
  { type: "text-end", id },
];

/** The same for a reasoning part. */
export const streamedReasoning = (id: string, ...deltas: string[]): LanguageModelV4StreamPart[] => [
  { type: "reasoning-start", id },
  ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "reasoning-delta", id, delta })),
  { type: "reasoning-end", id },
];

/** A model that answers call n with steps[n] (the last one repeats). */
export function script(steps: LanguageModelV4StreamPart[][]): MockLanguageModelV4 {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const chunks = steps[Math.min(call, steps.length - 1)] ?? [];
      call++;
      return { stream: convertArrayToReadableStream(chunks) };
    },
  });
}

/**
 * A stream that sends `chunks`, then stays open until the model call's abort signal
 * fires (and then errors with the abort reason, as a real fetch body does).
 */
export function hangingStream(chunks: LanguageModelV4StreamPart[], signal: AbortSignal | undefined): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      const onAbort = () => {
        const error = new Error("The operation was aborted");
        error.name = "AbortError";
        controller.error(error);
      };
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    },
  });
}

export const echo: Tool = define({
  id: "echo",
  description: "echo the text",
  parameters: z.object({ text: z.string() }),
  execute: async (input) => ({ title: `echo ${input.text}`, output: input.text.toUpperCase(), metadata: { length: input.text.length } }),
});

/** A tool that runs until it is aborted (then rejects with an AbortError). */
export function waiter(started: () => void): Tool {
  return define({
    id: "wait",
    description: "wait until aborted",
    parameters: z.object({}),
    execute: (_input, ctx) =>
      new Promise((_resolve, reject) => {
        started();
        const onAbort = () => {
          const error = new Error("the tool was aborted");
          error.name = "AbortError";
          reject(error);
        };
        if (ctx.abort.aborted) onAbort();
        else ctx.abort.addEventListener("abort", onAbort, { once: true });
      }),
  });
}

/** A RunLock whose releases can be awaited: a runner releases after `runners.idle()` resolves. */
class TrackedLock extends RunLock {
  private readonly releasing = new Set<Promise<void>>();

  override async release(sessionId: string): Promise<void> {
    const release = super.release(sessionId);
    this.releasing.add(release);
    try {
      await release;
    } finally {
      this.releasing.delete(release);
    }
  }

  async settle(): Promise<void> {
    await Promise.allSettled([...this.releasing]);
  }
}

const locks: TrackedLock[] = [];
export async function closeLocks(): Promise<void> {
  const all = locks.splice(0);
  // Let the runners that just went idle release their locks before the connections end.
  await new Promise((resolve) => setTimeout(resolve, 20));
  await Promise.all(all.map((l) => l.settle()));
  await Promise.all(all.map((l) => l.close()));
}

/**
 * For the tests of the describe block (or file) it is called in: a fake OpenAI server,
 * handed to `use` once started; after them the run locks are closed (closeLocks), then the server.
 */
export function fakeOpenAIAround(use: (fake: FakeOpenAI) => void): void {
  let fake: FakeOpenAI | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    use(fake);
  });
  afterAll(async () => {
    await closeLocks();
    await fake?.close();
  });
}

export interface ScriptedOptions {
  tools?: Tool[];
  /** Agents besides the built-in ones. */
  agents?: Agents;
  maxAttempts?: number;
  prices?: Prices;
  flushMs?: number;
}

/**
 * Services whose every model is `language` (100k context), with compaction off, the
 * given tools (an echo tool by default) run without the registry's truncation, and a run
 * lock whose releases can be awaited (closeLocks).
 */
export function scriptedServices(bus: Bus, language: LanguageModel, options: ScriptedOptions = {}): Services {
  const lock = new TrackedLock(databaseUrl());
  locks.push(lock);
  return testServices(bus, {
    lock,
    models: {
      resolve: (ref) => ({ ref, language, limit: { context: 100_000, output: 4_000 }, cost: options.prices ?? PRICES }),
      default: () => ({ providerId: "openai", modelId: "gpt-test" }),
      small: () => titleModel(),
    },
    settings: { maxAttempts: options.maxAttempts ?? 3, compaction: { auto: false, prune: false }, flushMs: options.flushMs ?? 20 },
    tools: options.tools ?? [echo],
    executeTool: (t, input, ctx) => t.execute(t.parameters.parse(input), ctx),
    ...(options.agents ? { agents: options.agents } : {}),
  });
}

/** Records the events of one session. */
export function recorder(bus: Bus, teamId: string, sessionId: string) {
  const events: Envelope[] = [];
  bus.subscribe({ teamId, sessionId }, (e) => events.push(e));
  const payloads = <T>(name: string) => events.filter((e) => e.name === name).map((e) => e.payload as T);
  return {
    events,
    statuses: () => payloads<{ status: Event.Status }>(Event.StatusChanged.name).map((p) => p.status),
    partUpdates: () => payloads<{ part: Part; delta?: string }>(Event.PartUpdated.name),
    /** Resolves when an event matching `test` was published (checks past events too). */
    when: (test: (e: Envelope) => boolean, timeoutMs = 10_000): Promise<Envelope> =>
      new Promise((resolve, reject) => {
        const found = events.find(test);
        if (found) {
          resolve(found);
          return;
        }
        const timer = setTimeout(() => {
          stop();
          reject(new Error("timed out waiting for an event"));
        }, timeoutMs);
        const stop = bus.subscribe({ teamId, sessionId }, (e) => {
          if (!test(e)) return;
          clearTimeout(timer);
          stop();
          resolve(e);
        });
      }),
  };
}

export function isPartUpdate(e: Envelope, test: (part: Part, delta: string | undefined) => boolean): boolean {
  if (e.name !== Event.PartUpdated.name) return false;
  const payload = e.payload as { part: Part; delta?: string };
  return test(payload.part, payload.delta);
}

export interface OfflineSession {
  /** The project's folder (temporary). */
  dir: string;
  ctx: Context;
  projectId: string;
  sessionId: string;
}

/**
 * For each test of the describe block it is called in: a team whose project is a fresh
 * temporary folder, with the offline model and bash allowed (offlineServices), and one
 * session titled `label` in it; the folder is removed after the test. Its fields are read
 * inside the tests.
 */
export function offlineSessionEach(label: string): OfflineSession {
  let current: OfflineSession | undefined;
  beforeEach(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), `parley-${label.replace(/\W/g, "-")}-`));
    const bus = new Bus();
    const { ctx, projectId } = await makeTeam({ bus, directory: dir, services: offlineServices(bus) });
    current = { dir, ctx, projectId, sessionId: (await Session.create(ctx, { projectId, title: label })).id };
  });
  afterEach(async () => {
    const dir = current?.dir;
    current = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const now = (): OfflineSession => {
    if (!current) throw new Error("the offline session exists only inside a test");
    return current;
  };
  return {
    get dir() {
      return now().dir;
    },
    get ctx() {
      return now().ctx;
    },
    get projectId() {
      return now().projectId;
    },
    get sessionId() {
      return now().sessionId;
    },
  };
}
