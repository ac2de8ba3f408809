import http from "node:http";
import https from "node:https";
import { ProviderLimitError } from "../limits";

/**
 * How the `compatible` provider sends its requests and reads their answers: Node's own
 * HTTP client (`node:http`/`node:https`) instead of `fetch`.
 *
 * A streamed answer arrives one small event at a time, often each on its own after a quiet
 * moment, and every arrival wakes the server. Read through `fetch` (undici), each costs
 * about twice the CPU it costs through `node:http`, whose parser is native and whose body is
 * a plain stream of buffers, not a web stream (measured over HTTP on a 2-core machine:
 * about 150 against 80 µs per event that arrives alone).
 *
 * What the SDK sees stays `fetch`'s: a `Response`, the same errors (a failed connection is
 * a `TypeError("fetch failed")` with the cause, an abort an `AbortError`), and the same
 * limits (300 s without a byte before the headers or within the body, as undici's
 * defaults). A request `node:http` cannot send as `fetch` would (a body that is not a
 * string, a protocol other than http and https) goes through `fetch` itself.
 *
 * A provider's answer is untrusted (limits.ts). Unlike `fetch`, a redirect is followed only
 * within the origin it came from (at most 5 times; another origin is refused with a
 * `ProviderLimitError`), and nothing is decompressed: requests ask for
 * `accept-encoding: identity` and an answer with any other content encoding is refused.
 */

/** A body as a source of byte chunks. */
export interface ByteSource {
  /** The next chunk; undefined at the end. Rejects when the body fails. */
  read(): Promise<Uint8Array | undefined>;
  cancel(reason?: unknown): Promise<void>;
}

/** An answer as it arrives: status, headers, and its body to read. */
export interface Incoming {
  status: number;
  statusText: string;
  headers: Headers;
  body: ByteSource | undefined;
}

export type Transport = (input: string | URL | Request, init?: RequestInit) => Promise<Incoming>;

/** Undici's default headers and body timeouts: the longest wait for the next byte. */
const IDLE_TIMEOUT_MS = 300_000;
/** Redirects followed within one origin before the answer is refused (fetch's own limit is 20). */
const MAX_REDIRECTS = 5;

/**
 * Where a redirect answer sends a request (undefined: it is not a redirect). Another
 * origin than `from`'s, or too many hops, is refused: a provider's redirect must not
 * send the server (with the provider's key) anywhere else.
 */
export function redirectTarget(status: number, location: string | null | undefined, from: URL, hops: number): URL | undefined {
  if (status < 300 || status >= 400 || !location) return undefined;
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    throw new ProviderLimitError("redirect", `The model's provider answered with a redirect to an invalid location (HTTP ${status}); provider redirects are followed only within the same origin`);
  }
  if (target.origin !== from.origin) {
    throw new ProviderLimitError("redirect", `The model's provider redirected to another origin (HTTP ${status} to ${target.origin}); provider redirects are followed only within the same origin`);
  }
  if (hops >= MAX_REDIRECTS) throw new ProviderLimitError("redirect", `The model's provider redirected more than ${MAX_REDIRECTS} times`);
  return target;
}

/** The method and body a followed redirect is sent with, as fetch does (a 303, or a POST moved by 301/302, becomes a GET without body). */
function redirected(status: number, init: RequestInit | undefined): RequestInit | undefined {
  const method = (init?.method ?? "GET").toUpperCase();
  const toGet = (status === 303 && method !== "GET" && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST");
  if (!toGet) return init;
  const headers = new Headers(init?.headers);
  for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) headers.delete(name);
  const { body: _body, ...rest } = init ?? {};
  return { ...rest, method: "GET", headers };
}

/** `send` with redirects followed only within the origin (see above), never by `fetch` itself. */
export function sameOriginFetch(send: typeof fetch): typeof fetch {
  return async (input, init) => {
    if (input instanceof Request) return refuseRedirect(await send(input, { ...init, redirect: "manual" }), new URL(input.url));
    let url = new URL(input);
    let request = init;
    for (let hops = 0; ; hops++) {
      const response = await send(url, { ...request, redirect: "manual" });
      const target = await cancelOnThrow(response, () => redirectTarget(response.status, response.headers.get("location"), url, hops));
      if (!target) return response;
      request = redirected(response.status, request);
      url = target;
    }
  };
}

/** A request given as a `Request` (whose body may be read once) is not sent again: any redirect is refused. */
async function refuseRedirect(response: Response, from: URL): Promise<Response> {
  await cancelOnThrow(response, () => {
    const target = redirectTarget(response.status, response.headers.get("location"), from, 0);
    if (target) throw new ProviderLimitError("redirect", `The model's provider answered with a redirect (HTTP ${response.status}), which is not followed for this request`);
    return undefined;
  });
  return response;
}

/** `check`'s answer; when it throws, `response`'s body is cancelled first. A redirect's body is dropped anyway. */
async function cancelOnThrow<T>(response: Response, check: () => T): Promise<T> {
  let value: T;
  try {
    value = check();
  } catch (error) {
    await response.body?.cancel(error);
    throw error;
  }
  if (value !== undefined) await response.body?.cancel();
  return value;
}

/** A `Response` of an answer whose body is `body` (by default the answer's own, unread). */
export function toResponse(incoming: Incoming, body: ReadableStream<Uint8Array> | null = incoming.body ? streamOf(incoming.body) : null): Response {
  // A status without a body (204, 304) cannot take one, even an empty stream.
  const bodyless = incoming.status === 204 || incoming.status === 304;
  return new Response(bodyless ? null : body, { status: incoming.status, statusText: incoming.statusText, headers: incoming.headers });
}

/** A web stream of `chunks`, then the rest of `source` (or `failure`, when reading it failed). */
export function streamOf(source: ByteSource, chunks: readonly Uint8Array[] = [], failure?: { error: unknown }): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      if (failure) controller.error(failure.error);
    },
    async pull(controller) {
      const chunk = await source.read();
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
}

/** A `fetch` as a transport (tests give their own). */
export function fetchTransport(send: typeof fetch): Transport {
  return async (input, init) => {
    const response = await send(input, init);
    const reader = response.body?.getReader();
    return {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      body: reader && {
        async read() {
          const { done, value } = await reader.read();
          return done ? undefined : value;
        },
        cancel: (reason) => reader.cancel(reason),
      },
    };
  };
}

/** What a read of a body fails with once its request is aborted: the signal's reason, as with fetch. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** The body of a `node:http` answer, a chunk at a time (paused while chunks wait to be read). */
function messageSource(message: http.IncomingMessage, signal: AbortSignal | undefined): ByteSource {
  const queue: Buffer[] = [];
  let ended = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const onAbort = () => {
    if (!ended) failure ??= { error: abortReason(signal as AbortSignal) };
    notify();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  message.on("data", (chunk: Buffer) => {
    queue.push(chunk);
    if (queue.length >= 16) message.pause();
    notify();
  });
  message.on("end", () => {
    ended = true;
    notify();
  });
  message.on("error", (error) => {
    failure ??= { error: signal?.aborted ? abortReason(signal) : error };
    notify();
  });
  message.on("close", () => {
    signal?.removeEventListener("abort", onAbort);
    // Closed before its end without an error of its own: aborted, or the connection was cut.
    if (!ended && signal?.aborted) failure ??= { error: abortReason(signal) };
    if (!ended) failure ??= { error: Object.assign(new Error("the connection closed before the answer ended"), { code: "ECONNRESET" }) };
    notify();
  });
  return {
    async read() {
      for (;;) {
        const chunk = queue.shift();
        if (chunk !== undefined) {
          if (message.isPaused() && queue.length < 4) message.resume();
          return chunk;
        }
        if (ended) return undefined;
        if (failure) throw failure.error;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    async cancel() {
      ended = true;
      queue.length = 0;
      message.destroy();
    },
  };
}

function headersOf(message: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

function timeout(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** `node:http` as a transport (see above); `fallback` sends what it cannot. */
export function httpTransport(fallback: typeof fetch = (input, init) => globalThis.fetch(input, init)): Transport {
  const viaFetch = fetchTransport(sameOriginFetch(fallback));
  const send = (input: string | URL | Request, init: RequestInit | undefined, hops: number): Promise<Incoming> => {
    const url = input instanceof Request ? undefined : new URL(input);
    const body = init?.body;
    const client = url?.protocol === "http:" ? http : url?.protocol === "https:" ? https : undefined;
    if (!url || !client || (body !== undefined && body !== null && typeof body !== "string")) return viaFetch(input, init);
    const headers: Record<string, string> = { "accept-encoding": "identity" };
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
    const signal = init?.signal ?? undefined;
    return new Promise<Incoming>((resolve, reject) => {
      let answered = false;
      const request = client.request(url, { method: init?.method ?? "GET", headers, ...(signal ? { signal } : {}) }, (message) => {
        answered = true;
        const status = message.statusCode ?? 0;
        let target: URL | undefined;
        try {
          target = redirectTarget(status, message.headers.location, url, hops);
          const encoding = message.headers["content-encoding"]?.trim().toLowerCase();
          if (!target && encoding && encoding !== "identity") {
            throw new ProviderLimitError("encoding", `The model's provider answered with a compressed body (content-encoding: ${encoding}), which is not accepted: Parley asks for an uncompressed answer`);
          }
        } catch (error) {
          message.destroy();
          reject(error);
          return;
        }
        if (target) {
          // Within the origin only (redirectTarget): sent again from here, never through fetch's own redirects.
          message.resume();
          send(target, redirected(status, init), hops + 1).then(resolve, reject);
          return;
        }
        resolve({ status, statusText: message.statusMessage ?? "", headers: headersOf(message), body: messageSource(message, signal) });
      });
      request.setTimeout(IDLE_TIMEOUT_MS, () => {
        request.destroy(answered ? timeout("UND_ERR_BODY_TIMEOUT", "Body Timeout Error") : timeout("UND_ERR_HEADERS_TIMEOUT", "Headers Timeout Error"));
      });
      request.on("error", (error) => {
        if (answered) return; // the body's own reader reports it
        // As fetch reports it: an abort as an abort, anything else as "fetch failed" with its cause.
        reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: error }));
      });
      request.end(body ?? undefined);
    });
  };
  return (input, init) => send(input, init, 0);
}
