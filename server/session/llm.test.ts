import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { type ToolSet, jsonSchema, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { DEFAULT_PROVIDER_LIMITS, type ProviderLimits } from "../provider/limits";
import type { ResolvedModel } from "../services";
import { type LlmEvent, stream, text } from "./llm";

/**
 * The model door (llm.ts): one model call, its stream passed on as events, the step's
 * tools run once the model has finished asking for them, abort and early stops.
 */

const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: 0 } };
const finish = (unified: "stop" | "tool-calls" | "length"): LanguageModelV4StreamPart => ({ type: "finish", finishReason: { unified, raw: unified }, usage });

function resolved(language: MockLanguageModelV4): ResolvedModel {
  return { ref: { providerId: "mock", modelId: "mock" }, language, limit: { context: 1000, output: 100 }, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
}

/** A model whose stream is `parts`, then (unless `hang`) closed; `cancelled` resolves when its reader cancels it. */
function scripted(parts: LanguageModelV4StreamPart[], options: { hang?: boolean } = {}) {
  let cancelled!: () => void;
  const wasCancelled = new Promise<void>((resolve) => (cancelled = resolve));
  const model = new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          for (const part of parts) controller.enqueue(part);
          if (!options.hang) controller.close();
        },
        cancel() {
          cancelled();
        },
      }),
    }),
  });
  return { model: resolved(model), wasCancelled };
}

const call = (id: string, toolName: string, input: unknown): LanguageModelV4StreamPart => ({ type: "tool-call", toolCallId: id, toolName, input: JSON.stringify(input) });
const schema = jsonSchema<{ ms: number }>({ type: "object", properties: { ms: { type: "number" } }, required: ["ms"], additionalProperties: false });

async function collect(events: AsyncIterable<LlmEvent>): Promise<LlmEvent[]> {
  const out: LlmEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const hi = [{ role: "user" as const, content: "hi" }];
const shape = (events: LlmEvent[]) => events.map((e) => ("toolCallId" in e ? `${e.type}:${e.toolCallId}` : e.type));

describe("the model door", () => {
  it("passes a step's text on between start-step and finish-step, with its usage and finish reason", async () => {
    const { model } = scripted([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Hel" }, { type: "text-delta", id: "t", delta: "lo" }, { type: "text-end", id: "t" }, finish("stop")]);
    const events = await collect(stream({ model, system: "s", messages: [{ role: "user", content: "hi" }], abortSignal: new AbortController().signal }).fullStream);
    expect(shape(events)).toEqual(["start-step", "text-start", "text-delta", "text-delta", "text-end", "finish-step"]);
    expect(events.at(-1)).toMatchObject({ type: "finish-step", finishReason: "stop", usage: { inputTokens: 3, outputTokens: 2 } });
    expect(await text({ model, system: "s", messages: [{ role: "user", content: "hi" }], abortSignal: new AbortController().signal })).toBe("Hello");
  });

  it("runs the step's tools together once the model has finished, their outcomes before finish-step in the order they end", async () => {
    const started: string[] = [];
    const tools: ToolSet = {
      wait: tool({
        inputSchema: schema,
        execute: async ({ ms }, { toolCallId }) => {
          started.push(toolCallId);
          await new Promise((resolve) => setTimeout(resolve, ms));
          if (ms === 0) throw new Error("failed at once");
          return `waited ${ms}`;
        },
      }),
    };
    const { model } = scripted([call("slow", "wait", { ms: 60 }), call("fast", "wait", { ms: 5 }), call("bad", "wait", { ms: 0 }), finish("tool-calls")]);
    const seen: string[] = [];
    const events: LlmEvent[] = [];
    for await (const event of stream({ model, system: "", messages: hi, tools, abortSignal: new AbortController().signal }).fullStream) {
      // No tool starts while the model still streams its calls.
      if (event.type === "tool-call") seen.push(`${event.toolCallId}:${started.length}`);
      events.push(event);
    }
    expect(seen).toEqual(["slow:0", "fast:0", "bad:0"]);
    expect(started).toEqual(["slow", "fast", "bad"]);
    expect(shape(events)).toEqual(["start-step", "tool-call:slow", "tool-call:fast", "tool-call:bad", "tool-error:bad", "tool-result:fast", "tool-result:slow", "finish-step"]);
    expect(events.find((e) => e.type === "tool-result" && e.toolCallId === "slow")).toMatchObject({ output: "waited 60" });
    const failed = events.find((e) => e.type === "tool-error");
    expect(failed && "error" in failed && failed.error).toBeInstanceOf(Error);
  });

  it("runs no tool after an answer cut off by its length, nor a call of a tool it does not have (which becomes a tool error)", async () => {
    let runs = 0;
    const tools: ToolSet = { wait: tool({ inputSchema: schema, execute: async () => `run ${++runs}` }) };
    const cut = scripted([call("a", "wait", { ms: 1 }), finish("length")]);
    const events = await collect(stream({ model: cut.model, system: "", messages: hi, tools, abortSignal: new AbortController().signal }).fullStream);
    expect(shape(events)).toEqual(["start-step", "tool-call:a", "finish-step"]);
    const invalid = scripted([call("b", "sleep", { ms: 1 }), finish("tool-calls")]);
    const after = await collect(stream({ model: invalid.model, system: "", messages: hi, tools, abortSignal: new AbortController().signal }).fullStream);
    expect(shape(after)).toEqual(["start-step", "tool-call:b", "tool-error:b", "finish-step"]);
    expect(runs).toBe(0);
  });

  it("ends a stream the provider closed without its finish as a step finished for an \"other\" reason, without usage or tools", async () => {
    let runs = 0;
    const tools: ToolSet = { wait: tool({ inputSchema: schema, execute: async () => `run ${++runs}` }) };
    const { model } = scripted([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "cut" }, call("a", "wait", { ms: 1 })]);
    const events = await collect(stream({ model, system: "", messages: hi, tools, abortSignal: new AbortController().signal }).fullStream);
    expect(shape(events)).toEqual(["start-step", "text-start", "text-delta", "tool-call:a", "finish-step"]);
    expect(events.at(-1)).toMatchObject({ type: "finish-step", finishReason: "other", usage: { inputTokens: undefined, outputTokens: undefined } });
    expect(runs).toBe(0);
  });

  it("ends with an abort at once when aborted while the provider is silent (even one ignoring the signal), and cancels its stream", async () => {
    const { model, wasCancelled } = scripted([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "x" }], { hang: true });
    const abort = new AbortController();
    const events: LlmEvent[] = [];
    for await (const event of stream({ model, system: "", messages: hi, abortSignal: abort.signal }).fullStream) {
      events.push(event);
      if (event.type === "text-delta") setTimeout(() => abort.abort("stopped by the user"), 10);
    }
    expect(shape(events)).toEqual(["start-step", "text-start", "text-delta", "abort"]);
    expect(events.at(-1)).toEqual({ type: "abort", reason: "stopped by the user" });
    await wasCancelled;
  });

  it("ends with an abort when aborted while its consumer handles start-step, from a provider that ignores the signal", async () => {
    let cancelled = false;
    // A stream that never sends anything (not even its start) and ignores the signal.
    const model = resolved(new MockLanguageModelV4({ doStream: async () => ({ stream: new ReadableStream<LanguageModelV4StreamPart>({ cancel: () => void (cancelled = true) }) }) }));
    const abort = new AbortController();
    const events: LlmEvent[] = [];
    for await (const event of stream({ model, system: "", messages: hi, abortSignal: abort.signal }).fullStream) {
      events.push(event);
      if (event.type === "start-step") abort.abort();
    }
    expect(shape(events)).toEqual(["start-step", "abort"]);
    expect(cancelled).toBe(true);
  });

  it("ends with an abort when aborted while the provider has not answered the call yet (and ignores the signal)", async () => {
    const silent = resolved(new MockLanguageModelV4({ doStream: () => new Promise<never>(() => undefined) }));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 10);
    const events = await collect(stream({ model: silent, system: "", messages: hi, abortSignal: abort.signal }).fullStream);
    expect(shape(events)).toEqual(["abort"]);
  });

  it("ends with an abort when aborted while a tool ignores the signal", async () => {
    const abort = new AbortController();
    const tools: ToolSet = { wait: tool({ inputSchema: schema, execute: () => new Promise<string>(() => undefined) }) };
    const { model } = scripted([call("a", "wait", { ms: 1 }), finish("tool-calls")]);
    const events: LlmEvent[] = [];
    setTimeout(() => abort.abort(), 30);
    for await (const event of stream({ model, system: "", messages: hi, tools, abortSignal: abort.signal }).fullStream) events.push(event);
    expect(shape(events)).toEqual(["start-step", "tool-call:a", "abort"]);
  });

  it("stops the provider's stream when its reader stops early (an error event ends the attempt)", async () => {
    const { model, wasCancelled } = scripted([{ type: "error", error: new Error("overloaded") }], { hang: true });
    for await (const event of stream({ model, system: "", messages: hi, abortSignal: new AbortController().signal }).fullStream) {
      if (event.type === "error") {
        expect(event.error).toMatchObject({ message: "overloaded" });
        break;
      }
    }
    await wasCancelled;
  });

  it("reports a call that fails before streaming (an HTTP error) as an error event; text() rejects with it", async () => {
    const failing = resolved(
      new MockLanguageModelV4({
        doStream: async () => {
          throw new Error("429 Too Many Requests");
        },
      }),
    );
    const events = await collect(stream({ model: failing, system: "", messages: hi, abortSignal: new AbortController().signal }).fullStream);
    expect(events).toEqual([{ type: "error", error: new Error("429 Too Many Requests") }]);
    await expect(text({ model: failing, system: "", messages: hi, abortSignal: new AbortController().signal })).rejects.toThrow("429 Too Many Requests");
  });
});

/** N8/N15: the step's clocks and part sizes (server/provider/limits.ts), for every model. */
describe("the model door's limits", () => {
  const limited = (model: ResolvedModel, limits: Partial<ProviderLimits>): ResolvedModel => ({ ...model, providerLimits: { ...DEFAULT_PROVIDER_LIMITS, ...limits } });
  const run = (model: ResolvedModel, signal = new AbortController().signal) => collect(stream({ model, system: "", messages: hi, abortSignal: signal }).fullStream);
  const limitError = (refusal: string, message: RegExp) => ({ type: "error", error: expect.objectContaining({ name: "ProviderLimitError", refusal, message: expect.stringMatching(message) }) });

  it("N15: a provider silent after its start (keepalives make no part) fails at idleTimeoutMs, and its stream is cancelled", async () => {
    const { model, wasCancelled } = scripted([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "x" }], { hang: true });
    const events = await run(limited(model, { idleTimeoutMs: 150 }));
    expect(shape(events)).toEqual(["start-step", "text-start", "text-delta", "error"]);
    expect(events.at(-1)).toEqual(limitError("idleTimeoutMs", /sent no output for 150 ms \(provider\.idleTimeoutMs: 150\)/));
    await wasCancelled;
  });

  it("N15: a provider that never answers the call fails at idleTimeoutMs too, the call aborted", async () => {
    let signal: AbortSignal | undefined;
    const silent = resolved(new MockLanguageModelV4({ doStream: (options) => ((signal = options.abortSignal), new Promise<never>(() => undefined)) }));
    const events = await run(limited(silent, { idleTimeoutMs: 150 }));
    expect(events).toEqual([limitError("idleTimeoutMs", /provider\.idleTimeoutMs/)]);
    expect(signal?.aborted).toBe(true);
  });

  it("N15: a step that keeps streaming past stepTimeoutMs fails there", async () => {
    let i = 0;
    const dripping = resolved(
      new MockLanguageModelV4({
        doStream: async () => ({
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            start(controller) {
              controller.enqueue({ type: "stream-start", warnings: [] });
              controller.enqueue({ type: "text-start", id: "t" });
            },
            async pull(controller) {
              await new Promise((resolve) => setTimeout(resolve, 20));
              controller.enqueue({ type: "text-delta", id: "t", delta: String(i++) });
            },
          }),
        }),
      }),
    );
    const events = await run(limited(dripping, { stepTimeoutMs: 300, idleTimeoutMs: 10_000 }));
    expect(events.filter((e) => e.type === "text-delta").length).toBeGreaterThan(3);
    expect(events.at(-1)).toEqual(limitError("stepTimeoutMs", /did not finish its answer within 300 ms \(provider\.stepTimeoutMs: 300\)/));
  });

  it("a text part or a tool input longer than maxPartChars fails the step; parts of other ids count apart", async () => {
    const long = "x".repeat(600);
    const { model } = scripted([
      { type: "text-start", id: "a" },
      { type: "text-delta", id: "a", delta: long },
      { type: "text-start", id: "b" },
      { type: "text-delta", id: "b", delta: long },
      { type: "text-delta", id: "a", delta: long },
      finish("stop"),
    ]);
    const events = await run(limited(model, { maxPartChars: 1024 }));
    expect(shape(events)).toEqual(["start-step", "text-start", "text-delta", "text-start", "text-delta", "error"]);
    expect(events.at(-1)).toEqual(limitError("maxPartChars", /a text part longer than 1024 characters \(provider\.maxPartChars: 1024\)/));
    const { model: tooling } = scripted([
      { type: "tool-input-start", id: "c", toolName: "wait" },
      { type: "tool-input-delta", id: "c", delta: long },
      { type: "tool-input-delta", id: "c", delta: long },
    ]);
    expect((await run(limited(tooling, { maxPartChars: 1024 }))).at(-1)).toEqual(limitError("maxPartChars", /a tool call's input longer than 1024/));
  });

  it("the caller's abort stays an abort, not a limit's error", async () => {
    const { model } = scripted([], { hang: true });
    const abort = new AbortController();
    setTimeout(() => abort.abort("stopped by the user"), 20);
    const events = await run(limited(model, { idleTimeoutMs: 10_000 }), abort.signal);
    expect(events.at(-1)).toEqual({ type: "abort", reason: "stopped by the user" });
  });
});
