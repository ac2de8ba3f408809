import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import { type LookupFunction, isIP } from "node:net";
import { isPrivateAddress } from "./address";
import { logger } from "../log";

const log = logger("mcp");

/**
 * The one way the server reaches a remote tool server: Node's HTTP client with
 * - every address a host name resolves to checked when the connection is made (so a DNS
 *   answer that changes between a check and the connection cannot reach a private address)
 *   and IP literals checked before, unless the operator allows private addresses;
 * - redirects followed only within the URL's origin (at most 5): a server cannot send the
 *   request, with its secret headers, to another origin;
 * - a bound on the bytes of one answer (a stream included) and on the wait for its headers.
 * It is handed to `@ai-sdk/mcp` as its `fetch`.
 */

export interface FetchLimits {
  /** Loopback, link-local and private addresses are reachable (the operator's `mcp.allowPrivateAddresses`). */
  allowPrivate: boolean;
  /** Bytes one answer may carry at most (its body, or all the events of a stream). */
  maxResponseBytes: number;
  /** How long the server waits for an answer's headers (ms). */
  headersTimeoutMs: number;
  /**
   * How long one request may take in all, its redirects and body included (ms): for
   * answers read whole (OAuth discovery, registration, tokens), never a stream. Unset: none.
   */
  totalTimeoutMs?: number;
}

/** A request the guard refused: the address, a redirect, a size or a time limit. Its message names the host, never a header. */
export class ToolServerFetchError extends Error {
  override name = "ToolServerFetchError";
}

const MAX_REDIRECTS = 5;

function refusedHost(host: string): ToolServerFetchError {
  return new ToolServerFetchError(
    `${host} resolves to a loopback, link-local or private address, which tool servers may not use on this server (the operator's mcp.allowPrivateAddresses setting)`,
  );
}

function guardedLookup(limits: FetchLimits): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 4);
      if (!limits.allowPrivate && addresses.some((entry) => isPrivateAddress(entry.address))) return callback(refusedHost(hostname), "", 4);
      if (options.all) return (callback as unknown as (e: null, list: dns.LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new ToolServerFetchError(`${hostname} has no address`), "", 4);
      callback(null, first.address, first.family);
    });
  };
}

function bodyOf(init: RequestInit | undefined): string | Uint8Array | undefined {
  const body = init?.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  // An OAuth token request's form.
  if (body instanceof URLSearchParams) return body.toString();
  throw new ToolServerFetchError("a tool server request's body must be text or bytes");
}

function headerRecord(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => (out[name] = value));
  if (init?.body instanceof URLSearchParams && out["content-type"] === undefined) out["content-type"] = "application/x-www-form-urlencoded;charset=UTF-8";
  return out;
}

/** One request, its answer as a `Response` whose body is cut at the size limit. */
function send(url: URL, init: RequestInit | undefined, limits: FetchLimits): Promise<Response> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!limits.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) return Promise.reject(refusedHost(url.hostname));
  if (url.protocol !== "https:" && url.protocol !== "http:") return Promise.reject(new ToolServerFetchError(`${url.protocol} is not a tool server protocol`));
  const client = url.protocol === "https:" ? https : http;
  const signal = init?.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    signal?.throwIfAborted();
    // A connection per request (no keep-alive): a server that restarted is never written to on a dead socket.
    const req = client.request(url, { method: init?.method ?? "GET", headers: headerRecord(init), lookup: guardedLookup(limits), signal, agent: false });
    const timer = setTimeout(() => req.destroy(new ToolServerFetchError(`${url.host} sent no answer within ${limits.headersTimeoutMs} ms`)), limits.headersTimeoutMs);
    req.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on("response", (res) => {
      clearTimeout(timer);
      resolve(toResponse(url, res, limits.maxResponseBytes));
    });
    const body = bodyOf(init);
    req.end(body);
  });
}

function toResponse(url: URL, res: http.IncomingMessage, maxBytes: number): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const status = res.statusCode ?? 500;
  let seen = 0;
  let over = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      res.on("data", (chunk: Buffer) => {
        if (over) return;
        seen += chunk.length;
        if (seen > maxBytes) {
          over = true;
          controller.error(new ToolServerFetchError(`${url.host} sent more than ${maxBytes} bytes in one answer`));
          res.destroy();
          return;
        }
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.on("end", () => {
        if (!over) controller.close();
      });
      res.on("error", (error) => {
        if (!over) controller.error(error);
        over = true;
      });
    },
    pull() {
      res.resume();
    },
    cancel() {
      over = true;
      res.destroy();
    },
  });
  const bodyless = status === 204 || status === 304 || status < 200;
  if (bodyless) res.resume();
  return new Response(bodyless ? null : body, { status, statusText: res.statusMessage ?? "", headers });
}

/** A `fetch` for tool servers, guarded as described above. */
export function guardedFetch(limits: FetchLimits): typeof fetch {
  return async (input, init) => {
    const start = input instanceof Request ? new URL(input.url) : new URL(input);
    let url = start;
    let request = init;
    if (limits.totalTimeoutMs !== undefined) {
      const deadline = AbortSignal.timeout(limits.totalTimeoutMs);
      request = { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline };
    }
    for (let hops = 0; ; hops++) {
      const response = await send(url, request, limits);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || !location) return response;
      await response.body?.cancel();
      const target = new URL(location, url);
      if (target.origin !== start.origin) throw new ToolServerFetchError(`${start.host} redirected to another origin (${target.origin}); tool server redirects are followed only within the same origin`);
      if (hops >= MAX_REDIRECTS) throw new ToolServerFetchError(`${start.host} redirected more than ${MAX_REDIRECTS} times`);
      if (response.status === 303) request = { ...request, method: "GET", body: null };
      url = target;
    }
  };
}

/** The id of a JSON-RPC `tools/call` request in a body, if it is one. */
function toolCallId(body: RequestInit["body"]): string | number | undefined {
  if (typeof body !== "string" || !body.includes("tools/call")) return undefined;
  try {
    const message: unknown = JSON.parse(body);
    if (typeof message !== "object" || message === null || !("method" in message) || message.method !== "tools/call" || !("id" in message)) return undefined;
    return typeof message.id === "string" || typeof message.id === "number" ? message.id : undefined;
  } catch (error) {
    // Not JSON: not a call to cancel.
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/**
 * MCP cancellation over HTTP: when a `tools/call` request is aborted before its answer
 * ended, the server is told (`notifications/cancelled` with the request's id, on the same
 * MCP session), as the protocol asks — closing the connection alone does not cancel a
 * call. The client library aborts its request but sends no notification itself.
 */
export function cancellingFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const id = toolCallId(init?.body);
    const signal = init?.signal;
    if (id === undefined || !signal) return inner(input, init);
    let done = false;
    const cancel = () => {
      if (done) return;
      const headers = new Headers(init.headers);
      headers.delete("content-length");
      const body = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "The user stopped the call." } });
      inner(input instanceof Request ? input.url : input, { method: "POST", headers, body, signal: AbortSignal.timeout(5_000) })
        .then((response) => response.body?.cancel())
        .catch((error: unknown) => log.warn(`could not tell a tool server that call ${String(id)} was cancelled: ${error instanceof Error ? error.message : String(error)}`));
    };
    signal.addEventListener("abort", cancel, { once: true });
    try {
      const response = await inner(input, init);
      if (!response.body) {
        done = true;
        return response;
      }
      // The answer is over when its body ends: from then on an abort cancels nothing.
      const watched = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: () => void (done = true) }));
      return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (error) {
      if (!signal.aborted) done = true;
      throw error;
    }
  };
}
