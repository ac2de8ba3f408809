import type { Envelope } from "./bus/bus";
import { ParleyError, httpStatus, isParleyError } from "./errors";
import { wire } from "./session/wire";

/** Route Handler helpers: one error mapping, one SSE stream. */

export function errorResponse(error: unknown): Response {
  if (isParleyError(error)) {
    return Response.json({ error: { code: error.code, message: error.message } }, { status: httpStatus(error.code) });
  }
  console.error("[http] unexpected error", error);
  return Response.json({ error: { code: "INTERNAL", message: "internal error" } }, { status: 500 });
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
}

/** The `end` of every SSE stream this process has open. */
const openStreams = new Set<() => void>();

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

/**
 * A Server-Sent Events response: each bus event as one `data:` line of JSON, a comment
 * heartbeat, and cleanup when the client goes away.
 */
export function sseResponse(signal: AbortSignal, source: EventSource): Response {
  const encoder = new TextEncoder();
  let cleanup = (_reason: "cancel" | "abort") => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      let heartbeat: ReturnType<typeof setInterval> | undefined = undefined;
      let unsubscribe = () => {};
      const close = (reason: "cancel" | "abort" | "end" | "failed", error?: unknown) => {
        if (!open) return;
        open = false;
        openStreams.delete(end);
        clearInterval(heartbeat);
        unsubscribe();
        signal.removeEventListener("abort", onAbort);
        // A cancelled stream is already closed (closing it again would throw); error() never throws.
        if (reason === "abort" || reason === "end") controller.close();
        else if (reason === "failed") controller.error(error);
      };
      const onAbort = () => close("abort");
      cleanup = close;
      // The client may be gone already (it left while the route was loading): an abort
      // listener added now would never fire, so close at once instead of subscribing.
      if (signal.aborted) {
        close("abort");
        return;
      }
      signal.addEventListener("abort", onAbort);
      const write = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch (error) {
          console.error("[http] SSE write failed, closing the stream", error);
          close("failed", error);
        }
      };
      const send = (event: Envelope) => write(frame(event));
      write(`retry: 1000\n: connected\n\n`);
      let held: Envelope[] | undefined = source.initial ? [] : undefined;
      // An end asked for before the subscription exists, or while the initial events are
      // still being read, waits until everything before it has been sent.
      let subscribed = false;
      let ending = false;
      // A declaration, so `close` (which may run before this line) can name it.
      function end() {
        if (!subscribed || held) ending = true;
        else close("end");
      }
      unsubscribe = source.subscribe((event) => (held ? held.push(event) : send(event)), end);
      subscribed = true;
      openStreams.add(end);
      if (ending && !held) {
        close("end");
        return;
      }
      heartbeat = setInterval(() => write(`: ping ${Date.now()}\n\n`), HEARTBEAT_MS);
      if (source.initial) {
        source
          .initial()
          .then((events) => {
            for (const event of events) send(event);
          })
          .catch((error: unknown) => {
            console.error("[http] could not read the initial state of an SSE stream", error);
            close("failed", error);
          })
          .finally(() => {
            const waiting = held ?? [];
            held = undefined;
            for (const event of waiting) send(event);
            if (ending) close("end");
          });
      }
    },
    cancel() {
      cleanup("cancel");
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}

export function notFound(what: string, id: string): ParleyError {
  return ParleyError.notFound(what, id);
}
