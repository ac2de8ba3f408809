import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The HTTP side of the fake providers (fake-anthropic.ts, fake-google.ts,
 * fake-responses.ts): a local server that answers each request with the next scripted
 * reply — an event stream written piece by piece (a piece may be part of an event, so a
 * tool call's JSON can arrive split across network chunks), or an HTTP error with the
 * provider's error body — and records every request with the key it carried.
 */

/** One write of a streamed reply. */
export type Write =
  /** Raw text (one or several SSE events, or part of one). */
  | { kind: "raw"; text: string }
  /** Pause the stream for `ms`. */
  | { kind: "wait"; ms: number }
  /** Hold the stream until the promise settles (a test decides when the model goes on). */
  | { kind: "gate"; until: Promise<unknown> }
  /** Destroy the connection here. */
  | { kind: "destroy" };

export type WireReply =
  | { kind: "stream"; writes: Write[]; headers?: Record<string, string> }
  | { kind: "error"; status: number; headers?: Record<string, string>; body: unknown };

export interface WireRequest {
  method: string;
  /** Path and query, e.g. "/v1/messages" or "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse". */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The key the request carried (the wire format's own header), or undefined. */
  key: string | undefined;
  time: number;
  /** When the response ended (finished, or the connection closed). */
  ended?: number;
}

export interface FakeProvider {
  /** e.g. http://127.0.0.1:12345 (the wire format adds its version path). */
  url: string;
  requests: WireRequest[];
  enqueue(...replies: WireReply[]): void;
  pending(): number;
  reset(): void;
  /** Picks the reply of a request before the queue (undefined: the queue). */
  route?: (request: WireRequest) => WireReply | undefined;
  close(): Promise<void>;
}

/** An SSE event: `event: <name>` when named, then its JSON data. */
export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

/** An event written in `pieces` network chunks (its text cut in even slices), a pause between them. */
export function splitWrites(text: string, pieces: number): Write[] {
  const size = Math.ceil(text.length / pieces);
  const out: Write[] = [];
  for (let at = 0; at < text.length; at += size) {
    if (at > 0) out.push({ kind: "wait", ms: 5 });
    out.push({ kind: "raw", text: text.slice(at, at + size) });
  }
  return out;
}

function write(res: http.ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.write(text, () => resolve());
  });
}

async function stream(res: http.ServerResponse, reply: Extract<WireReply, { kind: "stream" }>): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...reply.headers });
  res.flushHeaders();
  for (const step of reply.writes) {
    if (res.destroyed) return;
    if (step.kind === "raw") await write(res, step.text);
    else if (step.kind === "wait") await new Promise((resolve) => setTimeout(resolve, step.ms));
    else if (step.kind === "gate") await step.until.then(() => undefined, () => undefined);
    else {
      res.socket?.destroy();
      return;
    }
  }
  res.end();
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

export interface FakeProviderOptions {
  /** The key a request carries, read from its headers (and URL). */
  keyOf(headers: http.IncomingHttpHeaders, url: URL): string | undefined;
  /** The reply when nothing is scripted. */
  fallback: WireReply;
  port?: number;
}

export async function startFakeProvider(options: FakeProviderOptions): Promise<FakeProvider> {
  const queue: WireReply[] = [];
  const requests: WireRequest[] = [];
  const fake: FakeProvider = {
    url: "",
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    pending: () => queue.length,
    reset: () => void queue.splice(0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const url = new URL(req.url ?? "/", "http://fake");
      let body: Record<string, unknown> = {};
      try {
        body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch (error) {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: String(error) }));
        return;
      }
      const record: WireRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body, key: options.keyOf(req.headers, url), time: Date.now() };
      requests.push(record);
      res.on("close", () => (record.ended = Date.now()));
      const reply = fake.route?.(record) ?? queue.shift() ?? options.fallback;
      if (reply.kind === "error") {
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers }).end(JSON.stringify(reply.body));
        return;
      }
      await stream(res, reply);
    })().catch((error: unknown) => {
      // A test's fake: a failure here is a broken test script, shown and answered as a 500.
      console.error("[fake-provider]", error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** `Authorization: Bearer <key>` → the key. */
export function bearer(headers: http.IncomingHttpHeaders): string | undefined {
  const value = headers.authorization;
  return value?.startsWith("Bearer ") ? value.slice("Bearer ".length) : undefined;
}

/** One header's value as a string. */
export function header(headers: http.IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What a scripted answer holds, whatever its wire format: its blocks in order, its usage, how it ends. */
export type Block =
  | { kind: "reasoning"; deltas: string[] }
  | { kind: "text"; deltas: string[] }
  /** A tool call whose JSON arguments arrive in `pieces`. */
  | { kind: "tool"; id: string; name: string; pieces: string[] }
  /** Hold the stream here until the promise settles. */
  | { kind: "gate"; until: Promise<unknown> };

/** Token counts as the provider reports them: `input` excludes cached tokens; `output` includes reasoning. */
export interface WireUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/** The errors each fake can answer with, in its provider's own shape and words. */
export type WireError = "rate-limit" | "server" | "overloaded" | "context" | "bad-key";
