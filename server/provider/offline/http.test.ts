import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { APICallError, type LanguageModelV4, type LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { type LanguageModelUsage, type ModelMessage, type ToolSet, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type OfflineProviderServer, createOfflineProviderServer } from "../../../bench/offline-provider";
import { compatibleChatModel } from "../compatible/chat-stream";
import { createOfflineModel } from "./model";

/**
 * bench/offline-provider.ts: the offline model behind an OpenAI-compatible HTTP server must
 * look to the AI SDK's Chat Completions client exactly as the model does in process (same
 * text, same tool calls, same usage), except for its reasoning, which the chat API cannot carry.
 */

const FIXED = new Date("2026-01-01T00:00:00Z");
const FILE = path.resolve(import.meta.dirname, "../../../bench/offline-provider.ts");

/** Tools named and shaped like the app's (JSON schemas, as the toolset declares them), without execute. */
const schemas = {
  list: jsonSchema<{ path?: string }>({ type: "object", properties: { path: { type: "string" } }, additionalProperties: false }),
  read: jsonSchema<{ filePath: string }>({ type: "object", properties: { filePath: { type: "string" } }, required: ["filePath"], additionalProperties: false }),
  task: jsonSchema<{ description: string; prompt: string; subagent_type: string }>({
    type: "object",
    properties: { description: { type: "string" }, prompt: { type: "string" }, subagent_type: { type: "string" } },
    required: ["description", "prompt", "subagent_type"],
    additionalProperties: false,
  }),
};
const declared = {
  list: tool({ description: "List a directory", inputSchema: schemas.list }),
  read: tool({ description: "Read a file", inputSchema: schemas.read }),
  task: tool({ description: "Run a subagent", inputSchema: schemas.task }),
} satisfies ToolSet;

const README = "# Parley\nA team web app for agent sessions.\n";
/** The same tools with canned results, to run several steps. */
const executing = {
  list: tool({ ...declared.list, execute: async () => "README.md\na.txt" }),
  read: tool({ ...declared.read, execute: async ({ filePath }) => (filePath === "README.md" ? README : `File not found: ${filePath}`) }),
  task: tool({ ...declared.task, execute: async ({ prompt }) => `<task_result>\nDid ${prompt}.\n</task_result>` }),
} satisfies ToolSet;

const PROMPTS = [
  "list files and read README.md",
  "read README.md (job 1)",
  "in parallel, ask 3 subagents to read README.md (job 1), read README.md (job 2), read README.md (job 3)",
  "hello there",
  "read a.txt then write b.txt: hi",
];

let provider: OfflineProviderServer;
let base: string;
const inProcess = () => createOfflineModel({ tokensPerSecond: 0, now: () => FIXED });
const overHttp = (): LanguageModelV4 => compatibleChatModel("offline", { baseURL: `${base}/v1`, apiKey: "x" });

beforeAll(async () => {
  provider = createOfflineProviderServer({ tokensPerSecond: 0, now: () => FIXED });
  base = `http://127.0.0.1:${await provider.listen(0)}`;
});
afterAll(async () => {
  await provider.close();
});

interface Step {
  text: string;
  calls: Array<{ toolName: string; input: unknown }>;
  finish: string;
  usage: Omit<LanguageModelUsage, "raw">;
}

async function run(model: LanguageModelV4, messages: ModelMessage[], tools: ToolSet, steps = 1): Promise<Step[]> {
  const result = streamText({ model, messages, tools, stopWhen: stepCountIs(steps), maxRetries: 0 });
  return (await result.steps).map((step) => {
    const { raw: _raw, ...usage } = step.usage;
    return { text: step.text, calls: step.toolCalls.map((c) => ({ toolName: c.toolName, input: c.input })), finish: step.finishReason, usage };
  });
}

const user = (text: string): ModelMessage[] => [{ role: "user", content: text }];

async function post(body: unknown, pathname = "/v1/chat/completions", init: RequestInit = {}): Promise<Response> {
  return fetch(`${base}${pathname}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), ...init });
}

/** The JSON of each SSE event of a response, and whether it ended with [DONE]. */
async function events(response: Response): Promise<{ chunks: Array<Record<string, unknown>>; done: boolean }> {
  const text = await response.text();
  const data = text
    .split("\n\n")
    .filter(Boolean)
    .map((event) => {
      expect(event.startsWith("data: ")).toBe(true);
      return event.slice("data: ".length);
    });
  const done = data[data.length - 1] === "[DONE]";
  return { chunks: data.filter((d) => d !== "[DONE]").map((d) => JSON.parse(d) as Record<string, unknown>), done };
}

/** Every part of a model's stream, and what it threw if it failed. */
async function drain(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<{ parts: LanguageModelV4StreamPart[]; thrown?: unknown }> {
  const parts: LanguageModelV4StreamPart[] = [];
  const reader = stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  } catch (error) {
    return { parts, thrown: error };
  }
  return { parts };
}

describe("offline provider over HTTP", () => {
  it.each(PROMPTS)("answers %j as the in-process model does (text, tool calls, finish, usage)", async (prompt) => {
    const [local, remote] = await Promise.all([run(inProcess(), user(prompt), declared), run(overHttp(), user(prompt), declared)]);
    expect(remote).toEqual(local);
    expect(remote[0]?.text).not.toBe("");
  });

  it("makes the expected calls for the benchmark's prompts", async () => {
    const [list] = await run(overHttp(), user(PROMPTS[0] ?? ""), declared);
    expect(list?.calls).toEqual([
      { toolName: "list", input: { path: "." } },
      { toolName: "read", input: { filePath: "README.md" } },
    ]);
    expect(list?.finish).toBe("tool-calls");
    const [parallel] = await run(overHttp(), user(PROMPTS[2] ?? ""), declared);
    expect(parallel?.calls).toEqual(
      [1, 2, 3].map((i) => ({
        toolName: "task",
        input: { description: `read README.md (job ${i})`, prompt: `read README.md (job ${i})`, subagent_type: "general" },
      })),
    );
  });

  it("answers a second turn after tool results as the in-process model does", async () => {
    const messages: ModelMessage[] = [
      ...user("list files and read README.md"),
      {
        role: "assistant",
        content: [
          { type: "text", text: "I'll list the files and read `README.md`." },
          { type: "tool-call", toolCallId: "call_a", toolName: "list", input: { path: "." } },
          { type: "tool-call", toolCallId: "call_b", toolName: "read", input: { filePath: "README.md" } },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "call_a", toolName: "list", output: { type: "text", value: "README.md\na.txt" } },
          { type: "tool-result", toolCallId: "call_b", toolName: "read", output: { type: "text", value: README } },
        ],
      },
    ];
    const [local, remote] = await Promise.all([run(inProcess(), messages, declared), run(overHttp(), messages, declared)]);
    expect(remote).toEqual(local);
    expect(remote[0]?.finish).toBe("stop");
    expect(remote[0]?.text).toContain("Done — 2 tool calls");
    expect(remote[0]?.text).toContain("# Parley");
  });

  it.each([PROMPTS[0] ?? "", PROMPTS[2] ?? "", PROMPTS[4] ?? ""])("runs %j to the end with tools that execute, step by step as in process", async (prompt) => {
    const [local, remote] = await Promise.all([run(inProcess(), user(prompt), executing, 5), run(overHttp(), user(prompt), executing, 5)]);
    const strip = (steps: Step[]) => steps.map(({ usage: _usage, ...step }) => step);
    // Later steps' prompts hold the first step's reasoning in process only, so only their usage differs.
    expect(strip(remote)).toEqual(strip(local));
    expect(remote[0]?.usage).toEqual(local[0]?.usage);
    expect(remote.length).toBeGreaterThan(1);
    expect(remote[remote.length - 1]?.finish).toBe("stop");
  });

  it("streams OpenAI chunks: role first, indexed tool calls, finish reason, usage, [DONE]", async () => {
    const tools = Object.entries(schemas).map(([name, schema]) => ({ type: "function", function: { name, description: name, parameters: schema.jsonSchema } }));
    const response = await post({
      model: "bench-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: [{ type: "text", text: "list files and read README.md" }] }],
      tools,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const { chunks, done } = await events(response);
    expect(done).toBe(true);
    const ids = new Set(chunks.map((c) => c.id));
    expect(ids.size).toBe(1);
    for (const c of chunks) expect(c).toMatchObject({ object: "chat.completion.chunk", model: "bench-model", created: FIXED.getTime() / 1000 });
    type Delta = { role?: string; content?: string; tool_calls?: Array<{ index: number; id?: string; type?: string; function: { name?: string; arguments: string } }> };
    const choices = chunks.map((c) => c.choices as Array<{ delta: Delta; finish_reason: string | null }>);
    expect(choices[0]?.[0]?.delta).toEqual({ role: "assistant", content: "" });
    const deltas = choices.flatMap((c) => c.map((choice) => choice.delta));
    const text = deltas.map((d) => d.content ?? "").join("");
    expect(text).toMatch(/^I'll list the files and read `README.md`\./);
    expect(deltas.filter((d) => d.content !== undefined).length).toBeGreaterThan(3);
    const calls = new Map<number, { id?: string; name?: string; arguments: string }>();
    for (const call of deltas.flatMap((d) => d.tool_calls ?? [])) {
      const known = calls.get(call.index);
      if (!known) {
        expect(call).toMatchObject({ type: "function", function: { arguments: "" } });
        calls.set(call.index, { id: call.id, name: call.function.name, arguments: "" });
      } else {
        expect(call.id).toBeUndefined();
        known.arguments += call.function.arguments;
      }
    }
    expect([...calls.keys()]).toEqual([0, 1]);
    expect([...calls.values()].map((c) => [c.name, JSON.parse(c.arguments) as unknown])).toEqual([
      ["list", { path: "." }],
      ["read", { filePath: "README.md" }],
    ]);
    expect(calls.get(0)?.id).toMatch(/^call_/);
    // Several argument deltas per call (the model streams 16 characters at a time).
    expect(deltas.filter((d) => d.tool_calls?.[0]?.function.name === undefined && d.tool_calls).length).toBeGreaterThan(2);
    const finish = choices[choices.length - 2];
    expect(finish).toEqual([{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }]);
    const last = chunks[chunks.length - 1];
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: expect.any(Number) as number });
    const usage = last?.usage as { prompt_tokens: number; completion_tokens: number; total_tokens: number; completion_tokens_details: { reasoning_tokens: number } };
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it("reports the offline model's usage numbers", async () => {
    const local = await inProcess().doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "read README.md (job 1)" }] }] });
    const { parts } = await drain(local.stream);
    const finish = parts.find((p) => p.type === "finish");
    if (finish?.type !== "finish") throw new Error("no finish");
    const [remote] = await run(overHttp(), user("read README.md (job 1)"), {});
    expect(remote?.usage).toEqual({
      inputTokens: finish.usage.inputTokens.total,
      inputTokenDetails: { noCacheTokens: finish.usage.inputTokens.noCache, cacheReadTokens: 0, cacheWriteTokens: 0 },
      outputTokens: finish.usage.outputTokens.total,
      outputTokenDetails: { textTokens: finish.usage.outputTokens.text, reasoningTokens: finish.usage.outputTokens.reasoning },
      totalTokens: (finish.usage.inputTokens.total ?? 0) + (finish.usage.outputTokens.total ?? 0),
    });
    expect(remote?.usage.inputTokens).toBe(Math.ceil("read README.md (job 1)".length / 4));
  });

  it("counts answers by their finish and the streams still open", async () => {
    const before = provider.counts();
    await run(overHttp(), user("read README.md (job 1)"), declared);
    await run(overHttp(), user("hello"), declared);
    await run(overHttp(), user("hello again"), declared);
    expect(provider.counts()).toEqual({ stop: before.stop + 2, toolCalls: before.toolCalls + 1, streams: 0 });
  });

  it("answers a simulated HTTP failure with its status, headers and body before streaming", async () => {
    const response = await post({ model: "m", stream: true, messages: [{ role: "user", content: "fail with 429" }] });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toMatchObject({ error: { type: "rate_limit_exceeded", code: "rate_limit_exceeded" } });
    const error = await overHttp()
      .doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "context overflow" }] }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 400, isRetryable: false });
    expect((error as APICallError).message).toMatch(/maximum context length/);
  });

  it("drops the connection when the model drops it mid-stream", async () => {
    const result = await overHttp().doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "drop the connection" }] }] });
    const { parts, thrown } = await drain(result.stream);
    expect(parts.some((p) => p.type === "text-delta" && p.delta !== "")).toBe(true);
    expect(parts.some((p) => p.type === "finish" && p.finishReason.unified !== "error")).toBe(false);
    expect(thrown ?? parts.find((p) => p.type === "error")).toBeDefined();
    await vi.waitFor(() => expect(provider.counts().streams).toBe(0));
  });

  it("stops the model when the client goes away", async () => {
    const slow = createOfflineProviderServer({ tokensPerSecond: 20 });
    const port = await slow.listen(0);
    try {
      const abort = new AbortController();
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "write a long answer" }] }),
        signal: abort.signal,
      });
      const reader = response.body?.getReader();
      await reader?.read();
      expect(slow.counts().streams).toBe(1);
      abort.abort();
      await vi.waitFor(() => expect(slow.counts().streams).toBe(0));
      expect(slow.counts()).toEqual({ stop: 0, toolCalls: 0, streams: 0 });
    } finally {
      await slow.close();
    }
  });

  it("answers 400 for what it does not serve and 404 elsewhere", async () => {
    const bad = async (body: unknown, raw = false) => {
      const response = raw
        ? await fetch(`${base}/v1/chat/completions`, { method: "POST", body: String(body) })
        : await post(body);
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/json");
      return ((await response.json()) as { error: { message: string; type: string } }).error;
    };
    expect((await bad({ model: "m", messages: [{ role: "user", content: "hi" }] })).message).toMatch(/stream: true/);
    expect((await bad({ model: "m", stream: false, messages: [{ role: "user", content: "hi" }] })).type).toBe("invalid_request_error");
    expect((await bad("{not json", true)).message).toMatch(/not JSON/);
    expect((await bad({ model: "m", stream: true })).message).toMatch(/messages/);
    expect((await bad({ model: "m", stream: true, messages: [{ role: "robot", content: "hi" }] })).message).toMatch(/unknown role/);
    expect((await bad({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }], tools: [{ type: "function" }] })).message).toMatch(/tools\[0\]/);
    for (const [method, pathname] of [
      ["GET", "/v1/models"],
      ["POST", "/v1/completions"],
      ["POST", "/chat/completions"],
      ["POST", "/v1/chat/completions/x"],
    ] as const) {
      const response = await fetch(`${base}${pathname}`, { method, ...(method === "POST" ? { body: "{}" } : {}) });
      expect(response.status, `${method} ${pathname}`).toBe(404);
      await response.body?.cancel();
    }
  });
});

describe("offline provider forked, as the benchmark runs it", () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill();
  });

  it("sends its port, counts answers, takes a pace and exits when the parent disconnects", async () => {
    const forked = fork(FILE, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child = forked;
    const next = async () => ((await once(forked, "message")) as [Record<string, unknown>])[0];
    const { port } = (await next()) as { port: number };
    expect(port).toBeGreaterThan(0);
    forked.send({ tokensPerSecond: 0 });
    expect(await next()).toEqual({ ok: true });
    forked.send({ tokensPerSecond: -1 });
    expect(await next()).toMatchObject({ ok: false });
    const model = compatibleChatModel("offline", { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "x" });
    const [steps, local] = await Promise.all([run(model, user(PROMPTS[0] ?? ""), executing, 3), run(inProcess(), user(PROMPTS[0] ?? ""), executing, 3)]);
    expect(steps.map((s) => s.text)).toEqual(local.map((s) => s.text));
    forked.send({ count: true });
    expect(await next()).toEqual({ count: { stop: 1, toolCalls: 1, streams: 0 } });
    const exited = once(forked, "exit");
    forked.disconnect();
    expect(await exited).toEqual([0, null]);
  });
});
