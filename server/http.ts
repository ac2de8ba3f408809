import type { Envelope } from "./bus/bus";
import { ParleyError, httpStatus, isParleyError } from "./errors";
import { wire } from "./session/wire";
import { type Log, logger } from "./log";

const log = logger("http");

/** Route Handler helpers: one error mapping, one SSE stream. */

export function errorResponse(error: unknown, request?: { log: Log; requestId: string }): Response {
  if (isParleyError(error)) {
    return Response.json({ error: { code: error.code, message: error.message } }, { status: httpStatus(error.code) });
  }
  (request?.log ?? log).error("unexpected error", error);
  // The request's id, which the log line carries, is given to the client (never the error's text).
  const headers = request ? { "x-request-id": request.requestId } : undefined;
  return Response.json({ error: { code: "INTERNAL", message: "internal error" } }, { status: 500, headers });
}

const frames = new WeakMap<Envelope, string>();
/** The SSE frame of an event, made once however many clients receive it. */
function frame(event: Envelope): string {
  let text = frames.get(event);
  if (text === undefined) {
    text = `id: ${event.id}\ndata: ${JSON.stringify(wire(event))}\n\n`;
    frames.set(event, text);
  }
  return text;
}

export const HEARTBEAT_MS = Number(process.env.PARLEY_SSE_HEARTBEAT_MS ?? 15_000);
/**
 * What a stream may hold that its client has not taken yet (bytes). A client that falls
 * further behind (it stopped reading, its network is too slow) is dropped instead of
 * queued for without bound: its browser reconnects and reads the current state again.
 */
export const MAX_PENDING_BYTES = 1024 * 1024;

export interface EventSource {
  /**
   * Events that open the stream (e.g. the current state). Read after subscribing, so no
   * change is missed between the two; live events that arrive meanwhile follow them.
   */
  initial?: () => Promise<Envelope[]>;
  /**
   * Start delivering events to `send`; returns the unsubscribe. `end` closes the stream
   * from the server side once what was sent is flushed (e.g. a revoked share link).
   */
  subscribe(send: (event: Envelope) => void, end: () => void): () => void;
  /** Called once when the stream ends, however it ends (e.g. to count it out of a cap). */
  closed?(): void;
}

/**
 * The `end` of every SSE stream this process has open. On globalThis: Next.js bundles this
 * module once per route, and the one that ends them all (the runtime's, the shutdown's)
 * is rarely the copy of the SSE routes.
 */
const OPEN_STREAMS = Symbol.for("parley.open-streams");
const openStreams: Set<() => void> = ((globalThis as { [OPEN_STREAMS]?: Set<() => void> })[OPEN_STREAMS] ??= new Set());

/**
 * End every SSE stream of this process (after what each was sent): browsers reconnect a
 * second later and read the stored state again. Used when this instance may have missed
 * events from the others (its PostgreSQL bridge was disconnected for a while).
 */
export function restartStreams(): number {
  const ends = [...openStreams];
  for (const end of ends) end();
  return ends.length;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/**
 * A Server-Sent Events response: each event of `source` as one `data:` line of JSON, a
 * comment heartbeat, and cleanup when the client goes away.
 */
export function sseResponse(signal: AbortSignal, source: EventSource): Response {
  let stream: SseStream | undefined;
  // The default queue strategy (a high-water mark of one chunk): a byte-counting strategy
  // with a large mark made every write cost more on the streaming path (bench:stream).
  const body = new ReadableStream<Uint8Array>({
    // Runs at once, inside the constructor: the source is subscribed when this returns.
    start(controller) {
      stream = new SseStream(controller, signal, source);
      stream.start();
    },
    cancel() {
      stream?.close("cancel");
    },
  });
  return new Response(body, { headers: SSE_HEADERS });
}

type CloseReason = "cancel" | "abort" | "end" | "failed" | "behind";

/** One open SSE response: its subscription, heartbeat, and the events held while the initial ones are read. */
class SseStream {
  private readonly encoder = new TextEncoder();
  private open = true;
  /** Text queued for the next write. */
  private pending = "";
  /** Sizes of the chunks enqueued and not yet taken by the client, oldest first, and their sum. */
  private readonly queued: number[] = [];
  private queuedBytes = 0;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private unsubscribe = () => {};
  /** Live events that arrived while the initial events were read: sent right after them. */
  private held: Envelope[] | undefined;
  private subscribed = false;
  /** An end was asked for before everything ahead of it could be sent. */
  private ending = false;
  private readonly onAbort = () => this.close("abort");

  constructor(
    private readonly controller: ReadableStreamDefaultController<Uint8Array>,
    private readonly signal: AbortSignal,
    private readonly source: EventSource,
  ) {}

  /**
   * End the stream from the server side (the source's `end`, restartStreams). Asked before
   * the subscription exists, or while the initial events are still being read, it waits
   * until everything before it has been sent.
   */
  readonly end = (): void => {
    if (!this.subscribed || this.held) this.ending = true;
    else this.close("end");
  };

  start(): void {
    // The client may be gone already (it left while the route was loading): an abort
    // listener added now would never fire, so close at once instead of subscribing.
    if (this.signal.aborted) return this.close("abort");
    this.signal.addEventListener("abort", this.onAbort);
    this.write(`retry: 1000\n: connected\n\n`);
    const { initial } = this.source;
    this.held = initial ? [] : undefined;
    const unsubscribe = this.source.subscribe((event) => (this.held ? this.held.push(event) : this.send(event)), this.end);
    // Closed while subscribing (a write failed): nothing may stay subscribed.
    if (!this.open) return unsubscribe();
    this.unsubscribe = unsubscribe;
    this.subscribed = true;
    openStreams.add(this.end);
    if (this.ending && !this.held) return this.close("end");
    this.heartbeat = setInterval(() => this.write(`: ping ${Date.now()}\n\n`), HEARTBEAT_MS);
    if (initial) void this.sendInitial(initial);
  }

  /** Send the initial events, then the live ones held meanwhile, then end if that was asked. */
  private async sendInitial(initial: () => Promise<Envelope[]>): Promise<void> {
    try {
      for (const event of await initial()) this.send(event);
    } catch (error) {
      log.error("could not read the initial state of an SSE stream", error);
      this.close("failed", error);
    } finally {
      const waiting = this.held ?? [];
      this.held = undefined;
      for (const event of waiting) this.send(event);
      if (this.ending) this.close("end");
    }
  }

  close(reason: CloseReason, error?: unknown): void {
    if (!this.open) return;
    // What was queued goes out before a close from this side (unless that closes the stream itself).
    if (reason === "end") {
      this.flush();
      if (!this.open) return;
    }
    this.open = false;
    openStreams.delete(this.end);
    clearInterval(this.heartbeat);
    this.unsubscribe();
    this.signal.removeEventListener("abort", this.onAbort);
    // A cancelled stream is already closed (closing it again would throw); error() never throws.
    if (reason === "abort" || reason === "end") this.controller.close();
    else if (reason === "failed") this.controller.error(error);
    // What the client has not taken is thrown away with the connection (an AbortError, which
    // Next.js takes as a client gone rather than a failure to report).
    else if (reason === "behind") this.controller.error(new DOMException("the client fell too far behind", "AbortError"));
    this.source.closed?.();
  }

  private send(event: Envelope): void {
    this.write(frame(event));
  }

  /**
   * Queue text for the client. What is written within one synchronous run (an event
   * and the ones published right after it) goes out as one chunk — one socket write.
   */
  private write(text: string): void {
    if (!this.open) return;
    if (this.pending === "") queueMicrotask(this.flush);
    this.pending += text;
  }

  private readonly flush = (): void => {
    const text = this.pending;
    this.pending = "";
    if (!this.open || text === "") return;
    // The queue holds 1 - desiredSize chunks, the newest ones: the client took the others.
    const waiting = 1 - (this.controller.desiredSize ?? 1);
    while (this.queued.length > waiting) this.queuedBytes -= this.queued.shift() ?? 0;
    // Still holding more than MAX_PENDING_BYTES from earlier writes: the client is not keeping up.
    if (this.queuedBytes > MAX_PENDING_BYTES) return this.close("behind");
    try {
      const chunk = this.encoder.encode(text);
      this.controller.enqueue(chunk);
      this.queued.push(chunk.byteLength);
      this.queuedBytes += chunk.byteLength;
    } catch (error) {
      log.error("SSE write failed, closing the stream", error);
      this.close("failed", error);
    }
  };
}

export function notFound(what: string, id: string): ParleyError {
  return ParleyError.notFound(what, id);
}
