import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local fake of the OpenAI Chat Completions API for tests: `POST /v1/chat/completions`
 * with `stream: true` answered as Server-Sent Events (`data: {chunk}\n\n` … `data: [DONE]`).
 * Every request takes the next scripted reply from a queue (or the fallback when the
 * queue is empty) and every request body is recorded, so tests can check what the model
 * was sent and when.
 *
 *   const fake = await startFakeOpenAI();
 *   fake.enqueue(reply.text("Hello", " world"), reply.error(429, { headers: { "retry-after": "1" } }));
 *   compatibleChatModel("gpt-test", { baseURL: fake.url + "/v1", apiKey: "test" })
 */

export interface FakeUsage {
  prompt: number;
  completion: number;
  cached?: number;
  reasoning?: number;
}

/** One step of a streamed reply. */
export type StreamStep =
  /** A content delta. */
  | { kind: "text"; text: string }
  /** A tool call delta: the first piece carries id and name, the others only arguments. */
  | { kind: "tool"; index: number; id?: string; name?: string; arguments: string }
  /** The choice's finish reason (stop, tool_calls, length, content_filter). */
  | { kind: "finish"; reason: string }
  /** The usage chunk sent when `stream_options.include_usage` is set (no choices). */
  | { kind: "usage"; usage: FakeUsage }
  /** A raw `data:` line, e.g. invalid JSON. */
  | { kind: "raw"; data: string }
  /** Pause the stream for `ms`. */
  | { kind: "wait"; ms: number }
  /** Hold the stream until the promise settles (a test decides when the model goes on). */
  | { kind: "gate"; until: Promise<unknown> }
  /** Destroy the connection here (after flushing what was written). */
  | { kind: "destroy" };

export type FakeReply =
  | { kind: "stream"; steps: StreamStep[]; headers?: Record<string, string>; done?: boolean }
  | { kind: "error"; status: number; headers?: Record<string, string>; body?: unknown };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: ChatRequestBody;
  /** Milliseconds since the epoch when the request arrived. */
  time: number;
  /** The text deltas written so far, each with the moment it was written (ms since the epoch). */
  sent: { text: string; time: number }[];
  /** When the response ended: finished, or its connection closed by the client or cut (ms since the epoch). */
  ended?: number;
}

/** The parts of a Chat Completions request body tests look at. */
export interface ChatRequestBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages: ChatMessage[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  [key: string]: unknown;
}

export interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string; image_url?: { url: string } }[] | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** Builders of replies. */
export const reply = {
  /** A streamed text answer, one delta per argument, then `stop` and a usage chunk. */
  text(...deltas: string[]): FakeReply {
    return {
      kind: "stream",
      steps: [
        ...deltas.map((text) => ({ kind: "text" as const, text })),
        { kind: "finish", reason: "stop" },
        { kind: "usage", usage: { prompt: 10, completion: deltas.length } },
      ],
    };
  },
  /** A streamed reply made of explicit steps. */
  stream(steps: StreamStep[], options: { headers?: Record<string, string>; done?: boolean } = {}): FakeReply {
    return { kind: "stream", steps, ...options };
  },
  /** One tool call whose arguments arrive in `pieces`, then `tool_calls` and usage. */
  toolCall(call: { id: string; name: string; pieces: string[]; index?: number }, usage: FakeUsage = { prompt: 10, completion: 5 }): FakeReply {
    return {
      kind: "stream",
      steps: [...toolCallSteps(call), { kind: "finish", reason: "tool_calls" }, { kind: "usage", usage }],
    };
  },
  /** An HTTP error with an OpenAI-style error body. */
  error(status: number, options: { headers?: Record<string, string>; message?: string; type?: string; body?: unknown } = {}): FakeReply {
    return {
      kind: "error",
      status,
      ...(options.headers ? { headers: options.headers } : {}),
      body: options.body ?? { error: { message: options.message ?? `fake error ${status}`, type: options.type ?? "server_error", param: null, code: null } },
    };
  },
};

/** The deltas of one tool call whose arguments are split into pieces. */
export function toolCallSteps(call: { id: string; name: string; pieces: string[]; index?: number }): StreamStep[] {
  const index = call.index ?? 0;
  const [first = "", ...rest] = call.pieces;
  return [
    { kind: "tool", index, id: call.id, name: call.name, arguments: first },
    ...rest.map((piece) => ({ kind: "tool" as const, index, arguments: piece })),
  ];
}

export interface FakeOpenAI {
  /** e.g. http://127.0.0.1:12345 (append /v1 for the provider's baseURL). */
  url: string;
  requests: RecordedRequest[];
  /** Replies for the next requests, in order. */
  enqueue(...replies: FakeReply[]): void;
  /** How many scripted replies are still queued. */
  pending(): number;
  /** Drop the queued replies. */
  reset(): void;
  /** The reply used when the queue is empty (default: a 500 saying nothing was scripted). */
  fallback: FakeReply;
  /**
   * Picks the reply of a request before the queue is consulted (say, by a tag in its
   * messages, for tests whose requests come from several sessions at once); undefined
   * falls back to the queue.
   */
  route?: (request: RecordedRequest) => FakeReply | undefined;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

const CREATED = 1_700_000_000;

function chunk(id: string, model: string, choice: Record<string, unknown> | undefined, usage?: FakeUsage): string {
  const body: Record<string, unknown> = {
    id,
    object: "chat.completion.chunk",
    created: CREATED,
    model,
    choices: choice ? [{ index: 0, ...choice }] : [],
  };
  if (usage) {
    body.usage = {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      ...(usage.cached !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cached } } : {}),
      ...(usage.reasoning !== undefined ? { completion_tokens_details: { reasoning_tokens: usage.reasoning } } : {}),
    };
  }
  return `data: ${JSON.stringify(body)}\n\n`;
}

function write(res: http.ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) {
      resolve();
      return;
    }
    res.write(data, () => resolve());
  });
}

async function stream(res: http.ServerResponse, replyTo: FakeReply & { kind: "stream" }, model: string, requestNumber: number, record: RecordedRequest): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...replyTo.headers });
  res.flushHeaders();
  const id = `chatcmpl-${requestNumber}`;
  let first = true;
  const delta = (d: Record<string, unknown>) => {
    const withRole = first ? { role: "assistant", ...d } : d;
    first = false;
    return withRole;
  };
  for (const step of replyTo.steps) {
    if (res.destroyed) return;
    switch (step.kind) {
      case "text":
        await write(res, chunk(id, model, { delta: delta({ content: step.text }), finish_reason: null }));
        if (!res.destroyed) record.sent.push({ text: step.text, time: Date.now() });
        break;
      case "tool": {
        const call: Record<string, unknown> = { index: step.index, function: { arguments: step.arguments, ...(step.name ? { name: step.name } : {}) } };
        if (step.id) {
          call.id = step.id;
          call.type = "function";
        }
        await write(res, chunk(id, model, { delta: delta({ tool_calls: [call] }), finish_reason: null }));
        break;
      }
      case "finish":
        await write(res, chunk(id, model, { delta: {}, finish_reason: step.reason }));
        break;
      case "usage":
        await write(res, chunk(id, model, undefined, step.usage));
        break;
      case "raw":
        await write(res, `data: ${step.data}\n\n`);
        break;
      case "wait":
        await new Promise((resolve) => setTimeout(resolve, step.ms));
        break;
      case "gate":
        await step.until;
        break;
      case "destroy":
        // Give the client a moment to read what was written, then cut the connection.
        await new Promise((resolve) => setTimeout(resolve, 20));
        res.socket?.destroy();
        return;
    }
  }
  if (replyTo.done !== false) await write(res, "data: [DONE]\n\n");
  res.end();
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseBody(text: string): ChatRequestBody {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || !Array.isArray((parsed as { messages?: unknown }).messages)) {
    throw new Error("the request body has no messages");
  }
  return parsed as ChatRequestBody;
}

/** `port`: listen there (a server started elsewhere knows where to find it), else on any free port. */
export async function startFakeOpenAI(options: { port?: number } = {}): Promise<FakeOpenAI> {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];

  const fake: FakeOpenAI = {
    url: "",
    requests,
    fallback: reply.error(500, { message: "the fake OpenAI server has no scripted reply for this request" }),
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
    },
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const time = Date.now();
      const path = req.url ?? "/";
      if (req.method !== "POST" || path !== "/v1/chat/completions") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method ?? "?"} ${path}`, type: "invalid_request_error" } }));
        return;
      }
      let body: ChatRequestBody;
      try {
        body = parseBody(await readBody(req));
      } catch (error) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `bad request body: ${String(error)}`, type: "invalid_request_error" } }));
        return;
      }
      const record: RecordedRequest = { method: req.method, path, headers: req.headers, body, time, sent: [] };
      res.once("close", () => (record.ended = Date.now()));
      requests.push(record);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const next = fake.route?.(record) ?? queue.shift() ?? fake.fallback;
      if (next.kind === "error") {
        res.writeHead(next.status, { "content-type": "application/json", ...next.headers });
        res.end(typeof next.body === "string" ? next.body : JSON.stringify(next.body ?? {}));
        return;
      }
      await stream(res, next, body.model ?? "gpt-test", requests.length, record);
    })().catch((error: unknown) => {
      // A test bug in the script: answer with a 500 the test will see instead of hanging.
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake server failure: ${String(error)}`, type: "server_error" } }));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  return fake;
}

/**
 * The tag of a request: a `[word]` in one of its user messages (tests script the replies
 * of each session by the tag its first message carries). Undefined when none has one.
 */
export function tagOf(request: RecordedRequest): string | undefined {
  for (const message of request.body.messages) {
    if (message.role !== "user") continue;
    const tag = /\[(\w+)\]/.exec(contentText(message.content))?.[1];
    if (tag) return tag;
  }
  return undefined;
}

/** The text of a message's content, whether a string or parts. */
export const contentText = (content: ChatMessage["content"]) => (typeof content === "string" ? content : (content ?? []).map((c) => c.text ?? "").join(""));

/** The system prompt of a request ("" for none). */
export const systemOf = (request: RecordedRequest | undefined) => contentText(request?.body.messages.find((m) => m.role === "system")?.content);

/** A request for a session's title (made beside the first answer): not the agent's. */
export const isTitleRequest = (request: RecordedRequest) => systemOf(request).startsWith("Generate a short title");

/** How `routeByTag` answers: per tag, the replies left in order (each request of the tag takes the next). */
export interface TagRoute {
  scripts: Map<string, FakeReply[]>;
  /** Which script a request reads (default: `tagOf`). */
  tag?: (request: RecordedRequest) => string | undefined;
  /** Requests answered "A title" without reading a script (default: none). */
  isTitle?: (request: RecordedRequest) => boolean;
  /** The answer when the tag has nothing scripted (default: "(nothing scripted)"). */
  fallback?: FakeReply;
}

/** A `FakeOpenAI.route` answering each request from the script of its tag. */
export function routeByTag({ scripts, tag = tagOf, isTitle = () => false, fallback = reply.text("(nothing scripted)") }: TagRoute): (request: RecordedRequest) => FakeReply {
  return (request) => {
    if (isTitle(request)) return reply.text("A title");
    const key = tag(request);
    return (key ? scripts.get(key)?.shift() : undefined) ?? fallback;
  };
}
