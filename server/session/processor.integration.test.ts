import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { APICallError, type LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { tool as aiTool, jsonSchema, type LanguageModel, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import Decimal from "decimal.js";
import { afterAll, describe, expect, it } from "vitest";
import { hookedDb, makeTeam, testDb } from "../../test/db";
import {
  PRICES,
  closeLocks,
  finish,
  hangingStream,
  isPartUpdate,
  scriptedServices,
  recorder,
  script,
  streamedReasoning,
  streamedText,
  waiter,
} from "../../test/session-harness";
import { Bus } from "../bus/bus";
import type { Db } from "../db/client";
import * as Id from "../id";
import type { AssistantMessage, Part, PartOf, ToolPart, UserMessage } from "./message";
import { emptyTokens } from "./message";
import * as LLM from "./llm";
import { ABORTED_TOOL, Processor, type Result, type Turn as ProcessorTurn } from "./processor";
import * as Prompt from "./prompt";
import { messageData, messageFromRow, partFromRow } from "./rows";
import * as Status from "./status";
import type { Tool } from "../tool/tool";
import { eventually } from "../../test/tools";
import { Session } from ".";
import { type Services, withActor } from "../services";
import { testServices } from "../../test/runtime";
import type { Prices } from "./usage";

/**
 * The processor against the real database: scripted model streams in AI SDK
 * V4 chunk format go through the model door (llm.ts) into a Processor, and the
 * parts, the message and the session row are read back.
 */

afterAll(closeLocks);

interface Turn {
  bus: Bus;
  teamId: string;
  sessionId: string;
  assistant: AssistantMessage;
  rec: ReturnType<typeof recorder>;
}

/** A session with one user message and an (unsaved) assistant message answering it. */
async function turn(): Promise<Turn> {
  const bus = new Bus();
  const { ctx, projectId, teamId } = await makeTeam({ bus });
  const session = await Session.create(ctx, { projectId });
  const db = testDb();
  const user: UserMessage = {
    id: Id.ascending("message"),
    sessionId: session.id,
    role: "user",
    time: { created: Date.now() },
    agent: "build",
    model: { providerId: "openai", modelId: "gpt-test" },
  };
  await db.message.create({ data: { id: user.id, sessionId: session.id, role: "user", data: messageData(user), timeCreated: new Date() } });
  const assistant: AssistantMessage = {
    id: Id.ascending("message"),
    sessionId: session.id,
    role: "assistant",
    parentId: user.id,
    providerId: "openai",
    modelId: "gpt-test",
    agent: "build",
    path: { cwd: "/tmp", root: "/tmp" },
    cost: 0,
    tokens: emptyTokens(),
    time: { created: Date.now() },
  };
  return { bus, teamId, sessionId: session.id, assistant, rec: recorder(bus, teamId, session.id) };
}

interface RunOptions extends Partial<Pick<ProcessorTurn, "abort" | "isRejection" | "overflows" | "project" | "estimateInput">> {
  /** Called with the services before the run (to watch them). */
  watch?: (services: Services) => void;
  /** Called with the processor before the run. */
  onProcessor?: (processor: Processor) => void;
  /** The part window (default 0: every change published at once). */
  streamWindowMs?: number;
  tools?: ToolSet;
  prices?: Prices;
  maxAttempts?: number;
  flushMs?: number;
  db?: Db;
}

async function run(t: Turn, model: LanguageModel, options: RunOptions = {}): Promise<{ result: Result; processor: Processor }> {
  const abort = options.abort ?? new AbortController().signal;
  const services = testServices(t.bus, { db: options.db ?? testDb(), settings: { flushMs: options.flushMs ?? 20, maxAttempts: options.maxAttempts ?? 3, streamWindowMs: options.streamWindowMs ?? 0 } });
  options.watch?.(services);
  const processor = new Processor(services, {
    teamId: t.teamId,
    assistant: t.assistant,
    prices: options.prices ?? PRICES,
    abort,
    ...(options.isRejection ? { isRejection: options.isRejection } : {}),
    ...(options.overflows ? { overflows: options.overflows } : {}),
    ...(options.project ? { project: options.project } : {}),
    ...(options.estimateInput ? { estimateInput: options.estimateInput } : {}),
  });
  options.onProcessor?.(processor);
  const resolved = { ref: { providerId: "openai", modelId: "gpt-test" }, language: model, limit: { context: 100_000, output: 4_000 }, cost: PRICES };
  const result = await processor.run(() => LLM.stream({ model: resolved, system: "", messages: [{ role: "user", content: "hi" }], tools: options.tools ?? {}, abortSignal: abort }));
  return { result, processor };
}

async function stored(t: Turn): Promise<{ info: AssistantMessage; parts: Part[] }> {
  const db = testDb();
  const rows = await db.part.findMany({ where: { messageId: t.assistant.id }, orderBy: { id: "asc" } });
  const message = await db.message.findUniqueOrThrow({ where: { id: t.assistant.id } });
  const info = messageFromRow(message);
  if (info.role !== "assistant") throw new Error("not an assistant message");
  return { info, parts: rows.map(partFromRow) };
}

function only<T extends Part["type"]>(parts: Part[], type: T): PartOf<T>[] {
  return parts.filter((p): p is PartOf<T> => p.type === type);
}

const echoTool = (execute: (input: { text: string }) => Promise<unknown>) =>
  aiTool({
    description: "echo",
    inputSchema: jsonSchema<{ text: string }>({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
    execute,
  });

describe("processor: reasoning and text", () => {
  it("creates, appends to and finishes reasoning and text parts; text is trimmed at the end", async () => {
    const t = await turn();
    const model = script([
      [
        { type: "stream-start", warnings: [] },
        ...streamedReasoning("r1", "Let me ", "think.  "),
        ...streamedText("t1", "Hello", ", world!\n\n  "),
        finish("stop"),
      ],
    ]);
    const { result } = await run(t, model);
    expect(result).toBe("continue");
    const { info, parts } = await stored(t);
    expect(parts.map((p) => p.type)).toEqual(["step-start", "reasoning", "text", "step-finish"]);
    const [reasoning] = only(parts, "reasoning");
    // Reasoning is kept as streamed (only text is trimmed).
    expect(reasoning?.text).toBe("Let me think.  ");
    expect(reasoning?.time.end).toBeGreaterThanOrEqual(reasoning?.time.start ?? Infinity);
    const [text] = only(parts, "text");
    expect(text?.text).toBe("Hello, world!");
    expect(text?.time?.end).toBeDefined();
    expect(info.finish).toBe("stop");
    expect(info.error).toBeUndefined();
    expect(info.time.completed).toBeDefined();

    // Every delta was published at once, with only the appended text.
    const deltas = t.rec.partUpdates().filter((u) => u.delta !== undefined);
    expect(deltas.map((u) => [u.part.type, u.delta])).toEqual([
      ["reasoning", "Let me "],
      ["reasoning", "think.  "],
      ["text", "Hello"],
      ["text", ", world!\n\n  "],
    ]);
    // The first update of each part is its creation (empty, not finished).
    const firstText = t.rec.partUpdates().find((u) => u.part.type === "text");
    expect(firstText?.part).toMatchObject({ type: "text", text: "" });
    expect(firstText?.part.type === "text" && firstText.part.time?.end).toBeFalsy();
  });

  it("keeps two text blocks of one step apart, in order", async () => {
    const t = await turn();
    const model = script([
      [
        { type: "text-start", id: "a" },
        { type: "text-start", id: "b" },
        { type: "text-delta", id: "a", delta: "first" },
        { type: "text-delta", id: "b", delta: "second" },
        { type: "text-end", id: "a" },
        { type: "text-end", id: "b" },
        finish("stop"),
      ],
    ]);
    await run(t, model);
    const { parts } = await stored(t);
    expect(only(parts, "text").map((p) => p.text)).toEqual(["first", "second"]);
  });
});

describe("processor: provider metadata", () => {
  it("stores the provider metadata of reasoning, text and tool calls on their parts, merged per provider", async () => {
    const t = await turn();
    const model = script([
      [
        { type: "reasoning-start", id: "r", providerMetadata: { test: { itemId: "rs_1" } } },
        { type: "reasoning-delta", id: "r", delta: "thinking" },
        { type: "reasoning-delta", id: "r", delta: "", providerMetadata: { test: { signature: "sig-1" } } },
        { type: "reasoning-end", id: "r", providerMetadata: { test: { encrypted: "enc" } } },
        { type: "text-start", id: "t", providerMetadata: { test: { itemId: "msg_1" } } },
        { type: "text-delta", id: "t", delta: "hi" },
        { type: "text-end", id: "t" },
        { type: "tool-call", toolCallId: "c", toolName: "echo", input: '{"text":"a"}', providerMetadata: { test: { itemId: "fc_1" } } },
        finish("tool-calls"),
      ],
    ]);
    const tools = { echo: echoTool(async (input) => ({ title: "", output: input.text, metadata: {} })) };
    await run(t, model, { tools });
    const { parts } = await stored(t);
    expect(only(parts, "reasoning")[0]?.metadata).toEqual({ test: { itemId: "rs_1", signature: "sig-1", encrypted: "enc" } });
    expect(only(parts, "text")[0]?.metadata).toEqual({ test: { itemId: "msg_1" } });
    const [tool] = only(parts, "tool");
    expect(tool?.metadata).toEqual({ test: { itemId: "fc_1" } });
    expect(tool?.state.status).toBe("completed");
  });
});

describe("processor: tools", () => {
  it("moves a tool pending (raw accumulates) → running (parsed input) → completed (output, title, metadata)", async () => {
    const t = await turn();
    const model = script([
      [
        { type: "tool-input-start", id: "call1", toolName: "echo" },
        { type: "tool-input-delta", id: "call1", delta: '{"te' },
        { type: "tool-input-delta", id: "call1", delta: 'xt":"hi"' },
        { type: "tool-input-delta", id: "call1", delta: "}" },
        { type: "tool-input-end", id: "call1" },
        { type: "tool-call", toolCallId: "call1", toolName: "echo", input: '{"text":"hi"}' },
        finish("tool-calls"),
      ],
    ]);
    const tools = { echo: echoTool(async (input) => ({ title: `echo ${input.text}`, output: input.text.toUpperCase(), metadata: { n: 1 } })) };
    const { result } = await run(t, model, { tools });
    expect(result).toBe("continue");

    const states = t.rec
      .partUpdates()
      .map((u) => u.part)
      .filter((p): p is ToolPart => p.type === "tool")
      .map((p) => p.state);
    const pending = states.filter((s) => s.status === "pending");
    expect(pending.map((s) => s.status === "pending" && s.raw)).toEqual(["", '{"te', '{"text":"hi"', '{"text":"hi"}']);
    expect(states.map((s) => s.status).filter((s, i, all) => all[i - 1] !== s)).toEqual(["pending", "running", "completed"]);
    const running = states.find((s) => s.status === "running");
    expect(running).toMatchObject({ status: "running", input: { text: "hi" } });

    const { info, parts } = await stored(t);
    const [part] = only(parts, "tool");
    expect(part).toMatchObject({ callId: "call1", tool: "echo" });
    expect(part?.state).toMatchObject({ status: "completed", input: { text: "hi" }, output: "HI", title: "echo hi", metadata: { n: 1 } });
    if (part?.state.status === "completed") expect(part.state.time.end).toBeGreaterThanOrEqual(part.state.time.start);
    expect(info.finish).toBe("tool-calls");
  });

  it("a call's move to running is published at once and stored with the turn's next write, not in a statement of its own", async () => {
    const t = await turn();
    const written = recordedPartWrites();
    const model = script([
      [
        { type: "tool-input-start", id: "c1", toolName: "echo" },
        { type: "tool-input-delta", id: "c1", delta: '{"text":"hi"}' },
        { type: "tool-call", toolCallId: "c1", toolName: "echo", input: '{"text":"hi"}' },
        { type: "tool-input-start", id: "c2", toolName: "echo" },
        { type: "tool-input-delta", id: "c2", delta: '{"text":"yo"}' },
        { type: "tool-call", toolCallId: "c2", toolName: "echo", input: '{"text":"yo"}' },
        finish("tool-calls"),
      ],
    ]);
    const tools = { echo: echoTool(async (input) => ({ title: "", output: input.text, metadata: {} })) };
    // Streamed writes wait (10 s): every statement below is one the turn made at once.
    await run(t, model, { tools, db: written.db, flushMs: 10_000 });
    const published = t.rec
      .partUpdates()
      .map((u) => u.part)
      .filter((p): p is ToolPart => p.type === "tool" && p.state.status === "running");
    expect(published.map((p) => p.callId)).toEqual(["c1", "c2"]);
    // Three statements, each for a change written at once: the first result (carrying the
    // step's start and the other call's running state with it), the second result, the
    // step's end. Running states written on their own would make two more.
    const made = written.statements.map((rows) => rows.map((row) => (row.type === "tool" ? `${row.callId}:${row.status}` : row.type)));
    expect(made).toEqual([["step-start", "c1:completed", "c2:running"], ["c2:completed"], ["step-finish"]]);
    const { parts } = await stored(t);
    expect(only(parts, "tool").map((p) => p.state.status)).toEqual(["completed", "completed"]);
  });

  it("a call's input as it streams is published at once and stored with the turn's next write, not every flush", async () => {
    const t = await turn();
    const written = recordedPartWrites();
    // A stream the test feeds by hand, one event at a time.
    let send: (part: LanguageModelV4StreamPart) => void = () => undefined;
    let end: () => void = () => undefined;
    let opened: () => void = () => undefined;
    const streaming = new Promise<void>((resolve) => (opened = resolve));
    const model = new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            send = (part) => controller.enqueue(part);
            end = () => controller.close();
            opened();
          },
        }),
      }),
    });
    const tools = { echo: echoTool(async (input) => ({ title: "", output: input.text, metadata: {} })) };
    const raws = () => written.statements.flat().flatMap((row) => (row.type === "tool" ? [row.raw ?? row.status] : []));
    const turnDone = run(t, model, { tools, db: written.db, flushMs: 20 });
    await streaming;
    send({ type: "tool-input-start", id: "c1", toolName: "echo" });
    send({ type: "tool-input-delta", id: "c1", delta: '{"text":' });
    await t.rec.when((e) => isPartUpdate(e, (p) => p.type === "tool" && p.state.status === "pending" && p.state.raw === '{"text":'));
    // The opened part is written by the next flush (with the input so far)…
    await eventually(() => raws().length === 1);
    expect(raws()).toEqual(['{"text":']);
    // …and more input is published at once but waits for the turn's next write.
    send({ type: "tool-input-delta", id: "c1", delta: '"hi"}' });
    await t.rec.when((e) => isPartUpdate(e, (p) => p.type === "tool" && p.state.status === "pending" && p.state.raw === '{"text":"hi"}'));
    await sleep(100);
    expect(raws()).toEqual(['{"text":']);
    send({ type: "tool-call", toolCallId: "c1", toolName: "echo", input: '{"text":"hi"}' });
    send(finish("tool-calls"));
    end();
    await turnDone;
    expect(raws().at(-1)).toBe("completed");
    const { parts } = await stored(t);
    expect(only(parts, "tool")[0]?.state).toMatchObject({ status: "completed", input: { text: "hi" }, output: "hi" });
  });

  it("creates the tool part at tool-call when the stream had no tool-input-start", async () => {
    const t = await turn();
    const model = script([[{ type: "tool-call", toolCallId: "c2", toolName: "echo", input: '{"text":"yo"}' }, finish("tool-calls")]]);
    const tools = { echo: echoTool(async (input) => ({ title: "t", output: input.text, metadata: {} })) };
    await run(t, model, { tools });
    const { parts } = await stored(t);
    expect(only(parts, "tool")[0]?.state).toMatchObject({ status: "completed", output: "yo" });
  });

  it("a tool that throws ends in the error state with its message; the turn goes on", async () => {
    const t = await turn();
    const model = script([[{ type: "tool-call", toolCallId: "c3", toolName: "echo", input: '{"text":"x"}' }, finish("tool-calls")]]);
    const tools = {
      echo: echoTool(async () => {
        throw new Error("disk on fire");
      }),
    };
    const { result } = await run(t, model, { tools });
    expect(result).toBe("continue");
    const { info, parts } = await stored(t);
    const state = only(parts, "tool")[0]?.state;
    expect(state).toMatchObject({ status: "error", error: "disk on fire", input: { text: "x" } });
    if (state?.status === "error") expect(state.time.end).toBeGreaterThanOrEqual(state.time.start);
    expect(info.error).toBeUndefined();
  });

  it("a rejection (per isRejection) stops the loop", async () => {
    const t = await turn();
    const model = script([[{ type: "tool-call", toolCallId: "c4", toolName: "echo", input: '{"text":"x"}' }, finish("tool-calls")]]);
    class Rejected extends Error {}
    const tools = {
      echo: echoTool(async () => {
        throw new Rejected("the user rejected this call");
      }),
    };
    const { result } = await run(t, model, { tools, isRejection: (e) => e instanceof Rejected });
    expect(result).toBe("stop");
    const { parts } = await stored(t);
    expect(only(parts, "tool")[0]?.state).toMatchObject({ status: "error", error: "the user rejected this call" });
  });

  it("a call of an unknown tool becomes an error part (no tool is left pending)", async () => {
    const t = await turn();
    const model = script([[{ type: "tool-call", toolCallId: "c5", toolName: "nope", input: "{}" }, finish("tool-calls")]]);
    const tools = { echo: echoTool(async () => ({ title: "", output: "", metadata: {} })) };
    await run(t, model, { tools });
    const { parts } = await stored(t);
    const [part] = only(parts, "tool");
    expect(part?.tool).toBe("nope");
    expect(part?.state.status).toBe("error");
  });
});

describe("processor: steps, usage and cost", () => {
  it("writes step-start and step-finish parts and stores the finish reason on the message", async () => {
    const t = await turn();
    const model = script([[{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "x" }, { type: "text-end", id: "t" }, finish("length", 100, 20)]]);
    await run(t, model);
    const { info, parts } = await stored(t);
    expect(parts[0]?.type).toBe("step-start");
    const [stepFinish] = only(parts, "step-finish");
    expect(stepFinish?.reason).toBe("length");
    expect(stepFinish?.tokens).toEqual({ input: 100, output: 20, reasoning: 0, cache: { read: 0, write: 0 } });
    expect(stepFinish?.cost).toBe(new Decimal(100).mul(3).plus(new Decimal(20).mul(15)).div(1e6).toNumber());
    expect(info.finish).toBe("length");
  });

  it("splits cache and reasoning tokens out and prices every kind exactly; totals land on message and session", async () => {
    const t = await turn();
    const model = script([
      [
        ...streamedText("t", "ok"),
        {
          type: "finish",
          finishReason: { unified: "stop", raw: "stop" },
          usage: {
            inputTokens: { total: 1000, noCache: 600, cacheRead: 300, cacheWrite: 100 },
            outputTokens: { total: 500, text: 300, reasoning: 200 },
          },
        },
      ],
    ]);
    await run(t, model);
    const { info, parts } = await stored(t);
    const expectedTokens = { input: 600, output: 300, reasoning: 200, cache: { read: 300, write: 100 } };
    expect(info.tokens).toEqual(expectedTokens);
    // (600·3 + 300·15 + 200·15 + 300·0.3 + 100·3.75) / 1e6 = 9765 / 1e6
    expect(info.cost).toBe(0.009765);
    expect(only(parts, "step-finish")[0]).toMatchObject({ tokens: expectedTokens, cost: 0.009765 });
    const row = await testDb().session.findUniqueOrThrow({ where: { id: t.sessionId } });
    expect(Number(row.cost)).toBe(0.009765);
    expect([row.tokensInput, row.tokensOutput, row.tokensReasoning, row.tokensCacheRead, row.tokensCacheWrite].map(Number)).toEqual([600, 300, 200, 300, 100]);
    // The dashboard's sort column: the sum of the five.
    expect(Number(row.tokensTotal)).toBe(1500);
  });

  it("adds the steps of a turn without floating-point drift", async () => {
    // Two processors (two steps of one turn) at prices whose float sums drift: 0.1 + 0.2.
    const t = await turn();
    const prices = { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0 };
    const step = (input: number, output: number) => script([[{ type: "text-start", id: "t" }, { type: "text-end", id: "t" }, finish("stop", input, output)]]);
    await run(t, step(1_000_000, 0), { prices });
    const second: Turn = { ...t, assistant: { ...t.assistant, id: Id.ascending("message") } };
    await run(second, step(0, 1_000_000), { prices });
    const row = await testDb().session.findUniqueOrThrow({ where: { id: t.sessionId } });
    expect(Number(row.cost)).toBe(0.3);
    expect(0.1 + 0.2).not.toBe(0.3);
  });
});

describe("processor: provider errors", () => {
  const apiError = (statusCode: number, message: string, extra: Partial<ConstructorParameters<typeof APICallError>[0]> = {}) =>
    new APICallError({ message, url: "https://api.test/v1/chat/completions", requestBodyValues: {}, statusCode, ...extra });

  const failing = (error: unknown) => script([[{ type: "stream-start", warnings: [] }, { type: "error", error }]]);

  it("a 400 is a non-retryable APIError with its status code; no retry", async () => {
    const t = await turn();
    const { result } = await run(t, failing(apiError(400, "bad request", { responseBody: '{"error":"bad"}' })));
    expect(result).toBe("stop");
    const { info, parts } = await stored(t);
    expect(info.error).toMatchObject({ name: "APIError", statusCode: 400, isRetryable: false, message: "bad request" });
    expect(only(parts, "retry")).toHaveLength(0);
    expect(info.time.completed).toBeDefined();
    expect(t.rec.events.some((e) => e.name === "session.error")).toBe(true);
  });

  it("a 401 is an AuthError naming the provider", async () => {
    const t = await turn();
    await run(t, failing(apiError(401, "invalid api key")));
    const { info } = await stored(t);
    expect(info.error).toEqual({ name: "AuthError", providerId: "openai", message: "invalid api key" });
  });

  it("a context-length message is a ContextOverflowError (never retried, even as a 400 or 429)", async () => {
    const t = await turn();
    const model = failing(apiError(400, "This model's maximum context length is 128000 tokens", { isRetryable: true }));
    await run(t, model);
    const { info, parts } = await stored(t);
    expect(info.error?.name).toBe("ContextOverflowError");
    expect(only(parts, "retry")).toHaveLength(0);
  });

  it("an error thrown by the model call itself (not in the stream) is classified the same way", async () => {
    const t = await turn();
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw apiError(403, "forbidden");
      },
    });
    await run(t, model);
    const { info } = await stored(t);
    expect(info.error?.name).toBe("AuthError");
  });

  /** A model whose stream call `n` (from 1) is `stream(n)`; `calls()` counts the calls so far. */
  function countedModel(stream: (call: number) => ReturnType<MockLanguageModelV4["doStream"]>) {
    let calls = 0;
    const model = new MockLanguageModelV4({ doStream: () => stream(++calls) });
    return { model, calls: () => calls };
  }

  it("a retryable error is retried: retry part, retry status with attempt and next, then busy, then success", async () => {
    const t = await turn();
    const { model, calls } = countedModel(async (call) => {
      if (call === 1) throw apiError(429, "rate limited", { isRetryable: true, responseHeaders: { "retry-after-ms": "30" } });
      return script([[{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "ok" }, { type: "text-end", id: "t" }, finish("stop")]]).doStream({
        prompt: [],
      });
    });
    const started = Date.now();
    const { result } = await run(t, model);
    expect(result).toBe("continue");
    expect(calls()).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
    const { info, parts } = await stored(t);
    expect(info.error).toBeUndefined();
    const [retry] = only(parts, "retry");
    expect(retry).toMatchObject({ attempt: 1, max: 3, error: { name: "APIError", statusCode: 429, isRetryable: true } });
    // When the next attempt starts: the retry-after-ms wait after the failure.
    expect(retry && (retry.time.next ?? 0) - retry.time.created).toBe(30);
    expect(only(parts, "text").map((p) => p.text)).toEqual(["ok"]);
    const statuses = t.rec.statuses();
    const retryStatus = statuses.find((s) => s.type === "retry");
    expect(retryStatus).toMatchObject({ type: "retry", attempt: 1, message: "rate limited" });
    if (retryStatus?.type === "retry") expect(retryStatus.next).toBeGreaterThan(started);
    expect(statuses.at(-1)).toEqual({ type: "busy" });
  });

  it("a retry removes everything the failed attempt streamed (even finished text) so nothing is duplicated", async () => {
    const t = await turn();
    const retryable = apiError(503, "overloaded", { isRetryable: true, responseHeaders: { "retry-after-ms": "1" } });
    const model = script([
      [
        ...streamedReasoning("r", "hmm"),
        ...streamedText("t", "Hel"),
        { type: "text-start", id: "u" },
        { type: "text-delta", id: "u", delta: "half" },
        { type: "error", error: retryable },
      ],
      [
        ...streamedText("t", "Hello"),
        finish("stop"),
      ],
    ]);
    const { result } = await run(t, model);
    expect(result).toBe("continue");
    const { info, parts } = await stored(t);
    expect(info.error).toBeUndefined();
    expect(parts.map((p) => p.type)).toEqual(["retry", "step-start", "text", "step-finish"]);
    expect(only(parts, "text").map((p) => p.text)).toEqual(["Hello"]);
    const removed = t.rec.events.filter((e) => e.name === "message.part.removed");
    expect(removed).toHaveLength(4); // step-start, reasoning, two texts
  });

  it("stops retrying at maxAttempts and keeps the last error", async () => {
    const t = await turn();
    const { model, calls } = countedModel(async (call) => {
      throw apiError(503, `overloaded ${call}`, { isRetryable: true, responseHeaders: { "retry-after-ms": "1" } });
    });
    const { result } = await run(t, model, { maxAttempts: 3 });
    expect(result).toBe("stop");
    expect(calls()).toBe(3);
    const { info, parts } = await stored(t);
    expect(info.error).toMatchObject({ name: "APIError", statusCode: 503, message: "overloaded 3" });
    expect(only(parts, "retry").map((p) => p.attempt)).toEqual([1, 2]);
  });

  it("an abort while waiting to retry ends the wait at once with an AbortedError", async () => {
    const t = await turn();
    const controller = new AbortController();
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw apiError(429, "slow down", { isRetryable: true, responseHeaders: { "retry-after": "60" } });
      },
    });
    void t.rec.when((e) => e.name === "session.status" && (e.payload as { status: { type: string } }).status.type === "retry").then(() => controller.abort());
    const started = Date.now();
    const { result } = await run(t, model, { abort: controller.signal });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toBe("stop");
    const { info } = await stored(t);
    expect(info.error?.name).toBe("AbortedError");
  });
});

describe("processor: abort", () => {
  /**
   * A model that streams `chunks` and then hangs until its call is aborted, and the abort
   * signal of a run of turn `t`, aborted by the user once "wor" is streamed.
   */
  function abortedAtWor(t: Turn, chunks: LanguageModelV4StreamPart[]) {
    const controller = new AbortController();
    const model = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => ({ stream: hangingStream([{ type: "stream-start", warnings: [] }, ...chunks], abortSignal) }),
    });
    void t.rec.when((e) => isPartUpdate(e, (_p, delta) => delta === "wor")).then(() => controller.abort("Aborted by the user"));
    return { model, abort: controller.signal };
  }

  it("mid-text: AbortedError on the message, the text so far persisted and closed", async () => {
    const t = await turn();
    const { model, abort } = abortedAtWor(t, [
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Hello " },
      { type: "text-delta", id: "t", delta: "wor" },
    ]);
    // A long flush interval: the streamed text is persisted by the cleanup, not the timer.
    const { result } = await run(t, model, { abort, flushMs: 60_000 });
    expect(result).toBe("stop");
    const { info, parts } = await stored(t);
    expect(info.error?.name).toBe("AbortedError");
    expect(info.time.completed).toBeDefined();
    const [text] = only(parts, "text");
    expect(text?.text).toBe("Hello wor");
    expect(text?.time?.end).toBeDefined();
  });

  it("mid-step: the usage the provider never reported is estimated, counted and marked as an estimate", async () => {
    const t = await turn();
    const { model, abort } = abortedAtWor(t, [
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "Think about it" },
      { type: "reasoning-end", id: "r" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Hello " },
      { type: "text-delta", id: "t", delta: "wor" },
    ]);
    const before = await testDb().session.findUniqueOrThrow({ where: { id: t.sessionId } });
    await run(t, model, { abort, estimateInput: () => 1_000 });
    const { info, parts } = await stored(t);
    expect(info.error?.name).toBe("AbortedError");
    // "Hello wor" is 9 characters (3 tokens at 4 a token), "Think about it" 14 (4).
    const step = { input: 1_000, output: 3, reasoning: 4, cache: { read: 0, write: 0 } };
    const [finish] = only(parts, "step-finish");
    expect(finish).toMatchObject({ reason: "aborted", estimated: true, tokens: step });
    const cost = new Decimal(1_000).mul(PRICES.input).plus(new Decimal(3).mul(PRICES.output)).plus(new Decimal(4).mul(PRICES.output)).div(1_000_000).toNumber();
    expect(finish?.cost).toBe(cost);
    expect(info.usageEstimated).toBe(true);
    expect(info.tokens).toEqual(step);
    expect(info.cost).toBe(cost);
    const after = await testDb().session.findUniqueOrThrow({ where: { id: t.sessionId } });
    expect(Number(after.tokensInput - before.tokensInput)).toBe(1_000);
  });

  it("a step that finished keeps the usage the provider reported: nothing is estimated", async () => {
    const t = await turn();
    const model = script([
      [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Done" },
        { type: "text-end", id: "t" },
        finish("stop", 120, 30),
      ],
    ]);
    await run(t, model, { estimateInput: () => 1_000 });
    const { info, parts } = await stored(t);
    expect(only(parts, "step-finish").map((p) => p.estimated)).toEqual([undefined]);
    expect(info.usageEstimated).toBeUndefined();
    expect(info.tokens.input).toBe(120);
  });

  it("mid-tool (through the loop): the tool ends 'Tool execution aborted', AbortedError, status idle", async () => {
    const bus = new Bus();
    const { ctx, projectId } = await makeTeam({ bus });
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const model = script([[{ type: "tool-call", toolCallId: "w1", toolName: "wait", input: "{}" }, finish("tool-calls")]]);
    const deps = scriptedServices(bus, model, { tools: [waiter(() => started())] });
    const session = await Session.create(ctx, { projectId });
    const rec = recorder(bus, ctx.actor.teamId, session.id);
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "wait" }] });
    await toolStarted;
    await rec.when((e) => isPartUpdate(e, (p) => p.type === "tool" && p.state.status === "running"));
    await Prompt.abort(withActor(deps, ctx.actor), session.id);
    await deps.runners.idle(session.id);

    const messages = await Session.allMessages(ctx, session.id);
    expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant"]);
    const assistant = messages[1];
    expect(assistant?.info.role === "assistant" && assistant.info.error?.name).toBe("AbortedError");
    const tool = assistant?.parts.find((p): p is ToolPart => p.type === "tool");
    expect(tool?.state).toMatchObject({ status: "error", error: ABORTED_TOOL });
    if (tool?.state.status === "error") expect(tool.state.time.end).toBeGreaterThanOrEqual(tool.state.time.start);
    expect(rec.statuses().at(-1)).toEqual({ type: "idle" });
    const row = await testDb().session.findUniqueOrThrow({ where: { id: session.id } });
    expect(Status.fromRow(row)).toEqual({ type: "idle" });
  });
});

describe("processor: abort keeps what a running tool reported", () => {
  it("an aborted tool keeps its live metadata (e.g. output so far)", async () => {
    const bus = new Bus();
    const { ctx, projectId } = await makeTeam({ bus });
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const base = waiter(() => started());
    const reporting: Tool = {
      ...base,
      execute: (input, toolCtx) => {
        toolCtx.update({ title: "printing", metadata: { output: "line 1\n" } });
        return base.execute(input, toolCtx);
      },
    };
    const model = script([[{ type: "tool-call", toolCallId: "w1", toolName: "wait", input: "{}" }, finish("tool-calls")]]);
    const deps = scriptedServices(bus, model, { tools: [reporting] });
    const session = await Session.create(ctx, { projectId });
    const rec = recorder(bus, ctx.actor.teamId, session.id);
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "wait" }] });
    await toolStarted;
    await rec.when((e) => isPartUpdate(e, (p) => p.type === "tool" && p.state.status === "running" && p.state.metadata?.output === "line 1\n"));
    await Prompt.abort(withActor(deps, ctx.actor), session.id);
    await deps.runners.idle(session.id);
    const messages = await Session.allMessages(ctx, session.id);
    const tool = messages[1]?.parts.find((p): p is ToolPart => p.type === "tool");
    expect(tool?.state).toMatchObject({ status: "error", error: ABORTED_TOOL, metadata: { output: "line 1\n" } });
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A row of a part statement, as much of it as the tests read. */
interface WrittenRow {
  type: string;
  callId?: string;
  status?: string;
  /** A pending call's input so far. */
  raw?: string;
}

/**
 * The test database with `hook` called on each part statement (Store.persistParts) with its
 * rows (JSON) before it runs; a rejection the hook returns is the statement's outcome.
 */
function withPartWriteHook(hook: (rows: unknown) => Promise<never> | undefined): Db {
  // Only the parts' statement: messages and the status are written with $executeRaw too.
  return hookedDb("$executeRaw", (sql, values) => (sql.includes('INSERT INTO "Part"') ? hook(values[0]) : undefined));
}

/** The test database, recording the rows of each part statement (Store.persistParts) it runs. */
function recordedPartWrites(): { db: Db; statements: WrittenRow[][] } {
  const statements: WrittenRow[][] = [];
  const db = withPartWriteHook((json) => {
    if (typeof json !== "string") return undefined;
    const rows = JSON.parse(json) as Array<{ type: string; data: { callId?: string; state?: { status?: string; raw?: string } } }>;
    statements.push(rows.map((row) => ({ type: row.type, callId: row.data.callId, status: row.data.state?.status, raw: row.data.state?.raw })));
    return undefined;
  });
  return { db, statements };
}

/** The test database whose part writes (Store.persistParts' one statement) are rejected when `fail` answers true. */
function failingPartWrites(fail: () => boolean): Db {
  return withPartWriteHook(() => (fail() ? Promise.reject(new Error("part write failed")) : undefined));
}

describe("processor: cleanup", () => {
  it("a database write failing mid-turn ends the turn with a stored error; the cleanup still completes", async () => {
    const t = await turn();
    let writes = 0;
    // The second part write (the text's creation, after the step-start) fails.
    const db = failingPartWrites(() => ++writes === 2);
    const model = script([[{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "x" }, { type: "text-end", id: "t" }, finish("stop")]]);
    const { result } = await run(t, model, { db });
    expect(result).toBe("stop");
    const { info } = await stored(t);
    expect(info.error).toMatchObject({ name: "UnknownError", message: "part write failed" });
    expect(info.time.completed).toBeDefined();
  });

  it("closes a text that never got text-end and turns an unfinished tool into an aborted error", async () => {
    const t = await turn();
    const model = script([
      [
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "half  " },
        { type: "tool-input-start", id: "c9", toolName: "echo" },
        { type: "tool-input-delta", id: "c9", delta: '{"te' },
      ],
    ]);
    const tools = { echo: echoTool(async () => ({ title: "", output: "", metadata: {} })) };
    await run(t, model, { tools });
    const { info, parts } = await stored(t);
    expect(only(parts, "text")[0]).toMatchObject({ text: "half" });
    expect(only(parts, "text")[0]?.time?.end).toBeDefined();
    expect(only(parts, "tool")[0]?.state).toMatchObject({ status: "error", error: ABORTED_TOOL });
    expect(info.time.completed).toBeDefined();
  });
});

describe("processor: snapshots", () => {
  it("a step that runs no tool takes no snapshot; one that does is snapshotted before its first tool runs (even a tool called at once) and at its end, with its patch", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "parley-processor-snapshots-"));
    writeFileSync(path.join(dir, "a.txt"), "one");
    const project = { id: Id.ascending("project"), directory: dir };
    let tracks = 0;
    const watch = (services: Services) => {
      const track = services.snapshots.track.bind(services.snapshots);
      services.snapshots.track = (p) => {
        tracks++;
        return track(p);
      };
    };
    try {
      const text = await turn();
      const answer = script([[{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "hello" }, { type: "text-end", id: "t" }, finish("stop")]]);
      await run(text, answer, { project, watch });
      expect(tracks).toBe(0);
      const plain = (await stored(text)).parts;
      expect(plain.some((p) => (p.type === "step-start" || p.type === "step-finish") && p.snapshot !== undefined)).toBe(false);

      tracks = 0;
      const edit = await turn();
      let processor: Processor | undefined;
      // As toolset.ts does: every tool waits for the step's snapshot before it runs.
      const writer = aiTool({
        description: "write",
        inputSchema: jsonSchema<{ text: string }>({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
        execute: async (input: { text: string }) => {
          await processor?.beforeTool();
          writeFileSync(path.join(dir, "a.txt"), input.text);
          return "written";
        },
      });
      const call = script([[{ type: "tool-call", toolCallId: "w", toolName: "write", input: '{"text":"two"}' }, finish("tool-calls")]]);
      await run(edit, call, { project, watch, tools: { write: writer }, onProcessor: (p) => (processor = p) });
      expect(tracks).toBe(2);
      expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("two");
      const parts = (await stored(edit)).parts;
      const start = parts.find((p) => p.type === "step-start");
      const end = parts.find((p) => p.type === "step-finish");
      const patch = parts.find((p) => p.type === "patch");
      expect(start?.type === "step-start" && start.snapshot).toBeTruthy();
      expect(patch?.type === "patch" && patch.files).toEqual(["a.txt"]);
      expect(patch?.type === "patch" && start?.type === "step-start" && patch.hash === start.snapshot).toBe(true);
      expect(end?.type === "step-finish" && start?.type === "step-start" && end.snapshot !== start.snapshot).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("processor: live tool progress", () => {
  it("progress reported by a running tool is coalesced like streamed input: one event per window with the latest state, stored with the next streamed write", async () => {
    const t = await turn();
    let processor: Processor | undefined;
    const tool = aiTool({
      description: "progress",
      inputSchema: jsonSchema<{ text: string }>({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
      execute: async () => {
        // Once the part is running (reports before that are folded into its start).
        await new Promise((resolve) => setTimeout(resolve, 30));
        for (let i = 1; i <= 5; i++) await processor?.updateTool("p", { metadata: { done: i } });
        await new Promise((resolve) => setTimeout(resolve, 100));
        return "ok";
      },
    });
    const model = script([[{ type: "tool-call", toolCallId: "p", toolName: "progress", input: '{"text":"x"}' }, finish("tool-calls")]]);
    await run(t, model, { tools: { progress: tool }, onProcessor: (p) => (processor = p), streamWindowMs: 50 });
    const running = t.rec
      .partUpdates()
      .map((u) => u.part)
      .filter((p): p is ToolPart => p.type === "tool" && p.state.status === "running")
      .map((p) => (p.state.status === "running" ? p.state.metadata?.done : undefined))
      .filter((done) => done !== undefined);
    // The first report goes out at once; the four right behind it, as one event with the last.
    expect(running).toEqual([1, 5]);
    const { parts } = await stored(t);
    const done = parts.find((p): p is ToolPart => p.type === "tool");
    expect(done?.state.status).toBe("completed");
  });
});
