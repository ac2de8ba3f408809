import http from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { MIRRORED_SDK } from "./chat-chunks";
import { compatibleChatModel } from "./chat-stream";
import { DEFAULT_PROVIDER_LIMITS } from "../limits";

/**
 * The `compatible` provider's stream reader against `@ai-sdk/openai`'s chat model: the same
 * bodies, read the same way (each string of a body is one read of the socket), must give the
 * same stream parts, the same errors and the same early rejections. The reader's one
 * intended difference, text deltas that arrived in one read merged into one, is tested on
 * its own; parity compares the text of consecutive deltas joined.
 */

type Body = { reads: string[]; fail?: Error; status?: number; contentType?: string };

function respond(body: Body): Response {
  const encoder = new TextEncoder();
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = body.reads[i++];
      if (next !== undefined) controller.enqueue(encoder.encode(next));
      else if (body.fail) controller.error(body.fail);
      else controller.close();
    },
  });
  return new Response(stream, { status: body.status ?? 200, headers: { "content-type": body.contentType ?? "text/event-stream", "x-request-id": "req-1" } });
}

function models(body: Body): { sdk: LanguageModelV4; ours: LanguageModelV4; requests: () => number } {
  let requests = 0;
  const fetch: typeof globalThis.fetch = () => {
    requests++;
    return Promise.resolve(respond(body));
  };
  const settings = { baseURL: "http://fake.test/v1", apiKey: "k", fetch };
  return { sdk: createOpenAI(settings).chat("m"), ours: compatibleChatModel("m", settings), requests: () => requests };
}

const call = (extra: Partial<LanguageModelV4CallOptions> = {}): LanguageModelV4CallOptions => ({
  prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  ...extra,
});

/** A value comparable with `toEqual`: errors by class, message and HTTP facts; dates as ISO strings. */
function plain(value: unknown): unknown {
  if (value instanceof Error) {
    const facts: Record<string, unknown> = { class: value.constructor.name, name: value.name, message: value.message };
    for (const key of ["statusCode", "isRetryable", "responseBody", "data", "cause"] as const) {
      if (key in value) facts[key] = plain((value as unknown as Record<string, unknown>)[key]);
    }
    return facts;
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

type Outcome = { rejected: unknown } | { parts: unknown[]; streamError?: unknown; headers?: unknown };

/** Everything a model's `doStream` gives for one body. */
async function outcome(model: LanguageModelV4, options = call()): Promise<Outcome> {
  let result;
  try {
    result = await model.doStream(options);
  } catch (error) {
    return { rejected: plain(error) };
  }
  const parts: LanguageModelV4StreamPart[] = [];
  const reader = result.stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  } catch (error) {
    return { parts: normalize(parts), streamError: plain(error), headers: result.response?.headers };
  }
  return { parts: normalize(parts), headers: result.response?.headers };
}

/** Generated ids replaced, consecutive text deltas joined. */
function normalize(parts: LanguageModelV4StreamPart[]): unknown[] {
  const out: LanguageModelV4StreamPart[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (part.type === "text-delta" && last?.type === "text-delta" && last.id === part.id) {
      out[out.length - 1] = { ...last, delta: last.delta + part.delta };
      continue;
    }
    out.push(part.type === "source" ? { ...part, id: "<generated>" } : part);
  }
  return out.map(plain);
}

async function both(body: Body, options = call()): Promise<{ sdk: Outcome; ours: Outcome }> {
  const a = models(body);
  const b = models(body);
  return { sdk: await outcome(a.sdk, options), ours: await outcome(b.ours, options) };
}

const chunk = (value: Record<string, unknown>) => `data: ${JSON.stringify(value)}\n\n`;
const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1_700_000_000, model: "m-1" };
const text = (content: string, extra: Record<string, unknown> = {}) => chunk({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null, ...extra }] });
const role = chunk({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
const finish = (reason: string) => chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: reason }] });
const usage = chunk({
  ...base,
  choices: [],
  usage: {
    prompt_tokens: 20,
    completion_tokens: 9,
    total_tokens: 29,
    prompt_tokens_details: { cached_tokens: 4 },
    completion_tokens_details: { reasoning_tokens: 2, accepted_prediction_tokens: 1, rejected_prediction_tokens: 3 },
  },
});
const done = "data: [DONE]\n\n";
/** What undici throws when the server closes the connection mid-body. */
const dropped = () => new TypeError("terminated", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
const tool = (index: number, fn: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  chunk({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: fn, ...extra }] }, finish_reason: null }] });
const errorFrame = (error: Record<string, unknown>) => chunk({ error });

/** Bodies both readers must agree on, each as the reads it arrives in. */
const cases: Record<string, Body> = {
  "text, one chunk per read, finish and usage": { reads: [role, text("Hello"), text(" world"), finish("stop"), usage, done] },
  "text chunks split across reads mid-line and mid-character": {
    reads: [role + text("héllo ").slice(0, 30), text("héllo ").slice(30, 62), text("héllo ").slice(62) + text("wörld"), finish("stop") + done],
  },
  "CRLF and CR line ends, comments, event names and ids, multi-line data": {
    reads: [
      `: keep-alive\r\n\r\n`,
      text("a").replace(/\n/g, "\r\n"),
      `event: message\rid: 7\rdata: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: "b" }, finish_reason: null }] })}\r\r`,
      `data: {"id":"chatcmpl-1","choices":[{"index":0,\ndata: "delta":{"content":"c"},"finish_reason":null}]}\n\n`,
      finish("stop"),
    ],
  },
  "tool calls whose arguments arrive in pieces, two of them": {
    reads: [
      role,
      tool(0, { name: "read", arguments: "" }, { id: "call_1", type: "function" }),
      tool(0, { arguments: '{"path":' }),
      tool(0, { arguments: '"a.txt"}' }),
      tool(1, { name: "glob", arguments: '{"pattern":"*"}' }, { id: "call_2", type: "function" }),
      finish("tool_calls"),
      usage,
      done,
    ],
  },
  "two tool calls whose argument pieces interleave, told apart by their index only": {
    reads: [
      role,
      tool(0, { name: "read", arguments: "" }, { id: "call_1", type: "function" }),
      tool(1, { name: "glob", arguments: "" }, { id: "call_2", type: "function" }),
      tool(0, { arguments: '{"path":' }),
      tool(1, { arguments: '{"pattern":' }),
      tool(1, { arguments: '"*"}' }),
      tool(0, { arguments: '"a.txt"}' }),
      finish("tool_calls"),
      done,
    ],
  },
  "text then a tool call in the same read": { reads: [role + text("Let me look.") + tool(0, { name: "read", arguments: "{}" }, { id: "call_1" }) + finish("tool_calls") + done] },
  "tool call deltas with fields the schema does not know": { reads: [tool(0, { name: "read", arguments: "{}", extra: 1 }, { id: "call_1", type: "function", extra: true }), finish("tool_calls")] },
  "a tool call delta without an index": {
    reads: [text("a"), chunk({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ id: "c", function: { name: "read" } }] }, finish_reason: null }] }), finish("stop")],
  },
  "a tool call delta without its function": { reads: [text("a"), chunk({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "c" }] }, finish_reason: null }] })] },
  "a role other than assistant": { reads: [text("a"), chunk({ ...base, choices: [{ index: 0, delta: { role: "user", content: "b" }, finish_reason: null }] })] },
  "usage of the wrong type": { reads: [text("a"), finish("stop"), chunk({ ...base, choices: [], usage: { prompt_tokens: "20" } })] },
  "a choice without an index": { reads: [text("a"), chunk({ ...base, choices: [{ delta: { content: "b" }, finish_reason: null }] })] },
  "a finish reason that is not a string": { reads: [text("a"), chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 1 }] })] },
  "a delta that is null, and a chunk without a delta": { reads: [text("a"), chunk({ ...base, choices: [{ index: 0, delta: null, finish_reason: null }] }), chunk({ ...base, choices: [{ index: 0, finish_reason: "stop" }] })] },
  "metadata of the wrong type": { reads: [text("a"), chunk({ ...base, id: 5, choices: [{ index: 0, delta: { content: "b" }, finish_reason: null }] })] },
  "a tool call of another type than function": { reads: [role, tool(0, { name: "x", arguments: "{}" }, { id: "call_1", type: "custom" }), finish("tool_calls")] },
  "a refusal turns stop into content-filter": {
    reads: [role, chunk({ ...base, choices: [{ index: 0, delta: { refusal: "I can't" }, finish_reason: null }] }), chunk({ ...base, choices: [{ index: 0, delta: { refusal: " help." }, finish_reason: "stop" }] })],
  },
  "log probabilities collected across chunks": {
    reads: [
      role,
      text("a", { logprobs: { content: [{ token: "a", logprob: -0.1, top_logprobs: [{ token: "a", logprob: -0.1 }] }] } }),
      text("b", { logprobs: { content: [{ token: "b", logprob: -0.2, top_logprobs: [] }] } }),
      finish("stop"),
    ],
  },
  "url citations": {
    reads: [
      role,
      chunk({
        ...base,
        choices: [{ index: 0, delta: { content: "see", annotations: [{ type: "url_citation", url_citation: { start_index: 0, end_index: 3, url: "https://example.com", title: "Ex" } }] }, finish_reason: null }],
      }),
      finish("stop"),
    ],
  },
  "a retryable error frame after output": { reads: [role, text("partial"), errorFrame({ message: "The server is overloaded", type: "server_error", code: null })] },
  "a quota error frame after output": { reads: [text("partial"), errorFrame({ message: "quota", type: "insufficient_quota", code: "insufficient_quota" })] },
  "an error frame with an HTTP status code after output": { reads: [text("partial"), errorFrame({ message: "slow", code: "504" })] },
  "malformed JSON after output": { reads: [text("start"), "data: {not json\n\n", text(" more"), finish("stop")] },
  "a chunk of the wrong shape after output": { reads: [text("start"), chunk({ ...base, choices: "x" }), finish("stop")] },
  "a prototype-polluting chunk": { reads: [text("start"), `data: {"__proto__":{"x":1},"choices":[]}\n\n`, finish("stop")] },
  "unknown fields (reasoning_content) are ignored": {
    reads: [chunk({ ...base, choices: [{ index: 0, delta: { reasoning_content: "think" }, finish_reason: null }] }), text("ok", { extra: 1 }), finish("stop")],
  },
  "an end without a finish reason is interrupted": { reads: [role, text("cut")] },
  "Azure's first chunk without metadata": {
    reads: [chunk({ id: "", created: 0, model: "", choices: [], prompt_filter_results: [{ prompt_index: 0 }] }), text("hi"), finish("stop")],
  },
  "finish reasons length and unknown": { reads: [text("a"), finish("length")] },
  "an unknown finish reason": { reads: [text("a"), finish("something_new")] },
  "two choices": {
    reads: [chunk({ ...base, choices: [{ index: 0, delta: { content: "a" }, finish_reason: null }, { index: 1, delta: { content: "b" }, finish_reason: null }] }), finish("stop")],
  },
  // Before any output: the SDK's early-error check decides.
  "an error frame before any output": { reads: [role, errorFrame({ message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" })] },
  "an error frame before any output, then text": { reads: [role, errorFrame({ message: "overloaded", type: "server_error" }), text("x"), finish("stop")] },
  "a quota error frame before any output": { reads: [errorFrame({ message: "quota", type: "insufficient_quota", code: "insufficient_quota" })] },
  "malformed JSON before any output": { reads: [role, "data: {oops\n\n", text("x")] },
  "a read that fails before any output": { reads: [role], fail: new TypeError("terminated") },
  "a dropped connection before any output": { reads: [role], fail: dropped() },
  "an empty body": { reads: [] },
  "only DONE": { reads: [done] },
  "an event without its blank line at the end": { reads: [text("a"), `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: "b" }, finish_reason: "stop" }] })}`] },
  "an HTTP error": { reads: [JSON.stringify({ error: { message: "bad key", type: "invalid_request_error", code: "invalid_api_key" } })], status: 401, contentType: "application/json" },
  "an HTTP 500 with a body that is not JSON": { reads: ["oops"], status: 500, contentType: "text/plain" },
  "a success body that is not labelled as an event stream": { reads: [text("a"), finish("stop")], contentType: "text/plain" },
};

describe("the mirrored SDK", () => {
  it("is the @ai-sdk/openai installed: an upgrade fails here until this parity suite has run against it and MIRRORED_SDK names it", () => {
    const manifest: unknown = JSON.parse(readFileSync(createRequire(import.meta.url).resolve(`${MIRRORED_SDK.package}/package.json`), "utf8"));
    const version = typeof manifest === "object" && manifest !== null && "version" in manifest ? manifest.version : undefined;
    expect(version).toBe(MIRRORED_SDK.version);
  });
});

describe("compatible provider stream reader", () => {
  for (const [name, body] of Object.entries(cases)) {
    it(`gives the same parts as @ai-sdk/openai: ${name}`, async () => {
      const { sdk, ours } = await both(body);
      expect(ours).toEqual(sdk);
    });
  }

  it("gives the same raw chunks as @ai-sdk/openai when they are asked for (nothing merged)", async () => {
    const body = { reads: [role + text("a") + text("b"), "data: {bad\n\n", finish("stop") + usage + done] };
    const { sdk, ours } = await both(body, call({ includeRawChunks: true }));
    expect(ours).toEqual(sdk);
    const parts = "parts" in ours ? ours.parts : [];
    expect(parts.filter((p) => (p as LanguageModelV4StreamPart).type === "raw")).toHaveLength(6);
  });

  // The SDK's stream stages may drop the text queued before a failed read; this reader
  // delivers it first. The error is the same.
  for (const [name, fail] of [
    ["a failed read", new TypeError("terminated")],
    ["a dropped connection (retryable)", dropped()],
  ] as const) {
    it(`reports ${name} after output as the SDK does, after the text that came before it`, async () => {
      const { sdk, ours } = await both({ reads: [role, text("partial")], fail });
      const error = (o: Outcome) => ("streamError" in o ? o.streamError : undefined);
      expect(error(ours)).toEqual(error(sdk));
      expect(error(ours)).toMatchObject({ class: "APICallError", message: "Failed to process successful response", isRetryable: fail.cause !== undefined });
      expect("parts" in ours ? ours.parts : []).toContainEqual({ type: "text-delta", id: "0", delta: "partial" });
    });
  }

  it("merges the text deltas that arrived in one read into one, and only those", async () => {
    const { ours } = models({ reads: [role + text("a") + text("b") + text("c"), text("d"), text("e") + text("f") + finish("stop")] });
    const result = await ours.doStream(call());
    const deltas: string[] = [];
    const reader = result.stream.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) if (next.value.type === "text-delta") deltas.push(next.value.delta);
    expect(deltas).toEqual(["", "abc", "d", "ef"]);
  });

  it("sends one request, built by the SDK, and reports its body and URL", async () => {
    const m = models({ reads: [text("a"), finish("stop")] });
    const result = await m.ours.doStream(call());
    expect(m.requests()).toBe(1);
    expect(result.request?.body).toMatchObject({ model: "m", stream: true, stream_options: { include_usage: true } });
    expect(result.response?.headers).toMatchObject({ "x-request-id": "req-1" });
  });

  it("keeps the SDK's warnings in stream-start", async () => {
    const { sdk, ours } = await both({ reads: [text("a"), finish("stop")] }, call({ topK: 3 }));
    const start = (o: Outcome) => ("parts" in o ? o.parts[0] : undefined);
    expect(start(ours)).toEqual(start(sdk));
    expect(start(ours)).toMatchObject({ type: "stream-start", warnings: [expect.objectContaining({ feature: "topK" })] });
  });

  it("stops reading the body when the stream is cancelled", async () => {
    let cancelled: unknown;
    const fetch: typeof globalThis.fetch = () =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(text("a")));
            },
            cancel(reason) {
              cancelled = reason ?? "cancelled";
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
      );
    const model = compatibleChatModel("m", { baseURL: "http://fake.test/v1", apiKey: "k", fetch });
    const result = await model.doStream(call());
    const reader = result.stream.getReader();
    expect((await reader.read()).value?.type).toBe("stream-start");
    await reader.cancel("done here");
    expect(cancelled).toBe("done here");
  });
});

/**
 * The same over HTTP: a local server sends each read as its own write, the SDK's model reads
 * through fetch and this one through `node:http` (http-transport.ts). Errors are compared
 * by what callers act on (class, message, status, retryability): the two HTTP clients word
 * a cut connection's cause differently.
 */
describe("compatible provider over HTTP (node:http)", () => {
  let server: http.Server;
  let base: string;
  let current: Body & { redirect?: boolean } = { reads: [] };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (current.redirect && req.url === "/v1/chat/completions") {
          res.writeHead(307, { location: "/moved/chat/completions" });
          res.end();
          return;
        }
        res.writeHead(current.status ?? 200, { "content-type": current.contentType ?? "text/event-stream", "x-request-id": "req-1" });
        void (async () => {
          for (const read of current.reads) {
            res.write(read);
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
          if (current.fail) res.socket?.destroy();
          else res.end();
        })();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** What callers act on, of an outcome. */
  function coarse(o: Outcome): unknown {
    const error = (e: unknown) => {
      if (typeof e !== "object" || e === null) return e;
      const { class: cls, message, statusCode, isRetryable } = e as Record<string, unknown>;
      return { class: cls, message, statusCode, isRetryable };
    };
    if ("rejected" in o) return { rejected: error(o.rejected) };
    const parts = o.parts.map((p) => ((p as { type?: string }).type === "error" ? { type: "error", error: error((p as { error: unknown }).error) } : p));
    return { parts, ...(o.streamError !== undefined ? { streamError: error(o.streamError) } : {}) };
  }

  async function overHttp(body: Body & { redirect?: boolean }, options = call()) {
    current = body;
    const sdk = createOpenAI({ baseURL: `${base}/v1`, apiKey: "k" }).chat("m");
    const ours = compatibleChatModel("m", { baseURL: `${base}/v1`, apiKey: "k" });
    return { sdk: coarse(await outcome(sdk, options)), ours: coarse(await outcome(ours, options)) };
  }

  const names = [
    "text, one chunk per read, finish and usage",
    "text chunks split across reads mid-line and mid-character",
    "tool calls whose arguments arrive in pieces, two of them",
    "a refusal turns stop into content-filter",
    "a retryable error frame after output",
    "malformed JSON after output",
    "an error frame before any output, then text",
    "malformed JSON before any output",
    "an empty body",
    "an HTTP error",
    "an HTTP 500 with a body that is not JSON",
  ];
  for (const name of names) {
    it(`gives what @ai-sdk/openai gives: ${name}`, async () => {
      const body = cases[name];
      if (!body) throw new Error(`no case ${name}`);
      const { sdk, ours } = await overHttp(body);
      expect(ours).toEqual(sdk);
    });
  }

  it("a connection cut after output is a retryable error after the text, as with fetch", async () => {
    const { sdk, ours } = await overHttp({ reads: [role, text("partial")], fail: new Error("cut") });
    const streamError = (o: unknown) => (o as { streamError?: unknown }).streamError;
    expect(streamError(ours)).toEqual(streamError(sdk));
    expect(streamError(ours)).toMatchObject({ class: "APICallError", message: "Failed to process successful response", isRetryable: true });
  });

  it("a connection cut before any output is the same retryable error as with fetch", async () => {
    const { sdk, ours } = await overHttp({ reads: [role], fail: new Error("cut") });
    expect(ours).toEqual(sdk);
    expect((ours as { rejected?: unknown }).rejected ?? (ours as { streamError?: unknown }).streamError).toMatchObject({ isRetryable: true });
  });

  it("follows a redirect, as fetch does", async () => {
    const { sdk, ours } = await overHttp({ reads: [text("moved"), finish("stop")], redirect: true });
    expect(ours).toEqual(sdk);
    expect(JSON.stringify(ours)).toContain("moved");
  });

  it("a server that does not answer is the same retryable connection error as with fetch", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const url = `http://127.0.0.1:${port}/v1`;
    const sdk = coarse(await outcome(createOpenAI({ baseURL: url, apiKey: "k" }).chat("m")));
    const ours = coarse(await outcome(compatibleChatModel("m", { baseURL: url, apiKey: "k" })));
    expect(ours).toEqual(sdk);
    expect(ours).toMatchObject({ rejected: { class: "APICallError", isRetryable: true } });
  });

  it("an abort mid-stream ends the stream with an AbortError, as with fetch", async () => {
    for (const model of [createOpenAI({ baseURL: `${base}/v1`, apiKey: "k" }).chat("m"), compatibleChatModel("m", { baseURL: `${base}/v1`, apiKey: "k" })]) {
      current = { reads: [role, text("a"), ...Array.from({ length: 200 }, () => text("b"))] };
      const controller = new AbortController();
      const result = await model.doStream(call({ abortSignal: controller.signal }));
      const reader = result.stream.getReader();
      let failure: unknown;
      try {
        for (let next = await reader.read(); !next.done; next = await reader.read()) if (next.value.type === "text-delta") controller.abort();
      } catch (error) {
        failure = error;
      }
      expect(failure).toMatchObject({ name: "AbortError" });
    }
  });
});

/**
 * N8: the reader's limits over HTTP, small here (4 KiB events, 16 KiB before output,
 * 64 KiB per answer): each broken limit fails the call with a ProviderLimitError naming it,
 * and the body is no longer read.
 */
describe("N8: the compatible reader's limits (node:http)", () => {
  let server: http.Server;
  let url: string;
  let origin: string;
  let handle: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end();
  const limits = { ...DEFAULT_PROVIDER_LIMITS, maxEventChars: 4096, maxBytesBeforeOutput: 16_384, maxAnswerBytes: 65_536 };
  const model = () => compatibleChatModel("m", { baseURL: `${url}/v1`, apiKey: "k", limits });
  /** Whatever `doStream` ended with: its rejection, its stream's error, or an error part. */
  async function failure(): Promise<unknown> {
    const o = await outcome(model());
    if ("rejected" in o) return o.rejected;
    return o.streamError ?? o.parts.find((p) => (p as { type?: string }).type === "error");
  }
  /** Writes `next()` for as long as the client reads; how many bytes went out. */
  function endless(res: http.ServerResponse, next: () => string): { written: () => number } {
    let written = 0;
    const write = () => {
      while (!res.destroyed) {
        const data = next();
        written += data.length;
        if (written > 50_000_000) return void res.end();
        if (!res.write(data)) return void res.once("drain", write);
      }
    };
    res.writeHead(200, { "content-type": "text/event-stream" });
    write();
    return { written: () => written };
  }

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => handle(req, res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}`;
    origin = `http://localhost:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("a line that never ends fails at maxEventChars", async () => {
    let first = true;
    handle = (_req, res) => void endless(res, () => (first ? ((first = false), "data: ") : "x".repeat(1024)));
    expect(await failure()).toMatchObject({ class: "ProviderLimitError", message: expect.stringContaining("(provider.maxEventChars: 4096)") });
  });

  it("chunks that give no output fail at maxBytesBeforeOutput; with output first, the answer at maxAnswerBytes", async () => {
    const empty = chunk({ ...base, choices: [] });
    handle = (_req, res) => void endless(res, () => empty);
    expect(await failure()).toMatchObject({ class: "ProviderLimitError", message: expect.stringContaining("without any output (provider.maxBytesBeforeOutput: 16384)") });
    let first = true;
    handle = (_req, res) => void endless(res, () => (first ? ((first = false), text("hi")) : empty));
    expect(await failure()).toMatchObject({ class: "ProviderLimitError", message: expect.stringContaining("(provider.maxAnswerBytes: 65536)") });
  });

  it("a redirect to another origin is refused, one within the origin followed", async () => {
    handle = (req, res) => {
      if (req.url === "/v1/chat/completions") {
        res.writeHead(302, { location: `${origin}/elsewhere` });
        return void res.end();
      }
      res.writeHead(500);
      res.end();
    };
    expect(await failure()).toMatchObject({ class: "ProviderLimitError", message: expect.stringMatching(/redirected to another origin \(HTTP 302 to http:\/\/localhost:\d+\)/) });
    handle = (req, res) => {
      if (req.url === "/v1/chat/completions") {
        res.writeHead(308, { location: "/v2/chat/completions" });
        return void res.end();
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(text("moved") + finish("stop"));
    };
    expect(JSON.stringify(await outcome(model()))).toContain("moved");
  });

  it("asks for an uncompressed answer and refuses a compressed one", async () => {
    let asked: string | undefined;
    handle = (req, res) => {
      asked = req.headers["accept-encoding"];
      res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" });
      res.end(gzipSync(text("zipped") + finish("stop")));
    };
    expect(await failure()).toMatchObject({ class: "ProviderLimitError", message: expect.stringContaining("content-encoding: gzip") });
    expect(asked).toBe("identity");
  });
});
