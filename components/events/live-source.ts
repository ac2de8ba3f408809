"use client";

/**
 * Where a tab's live stream comes from. A session's stream is the tab's own EventSource.
 * A team's stream (the sidebar, presence, lists, the dashboard) is shared by every tab of
 * the browser: the tab holding the Web Lock named for it opens the one EventSource and
 * passes each event on over a BroadcastChannel to the others, which open none — browsers
 * allow about six HTTP/1.1 connections per host across all tabs, and each session page
 * holds its own session stream already. When the holding tab closes, the lock goes to a
 * waiting tab, which opens the stream (its listeners see a reconnection and read their
 * state again). A browser without Web Locks or BroadcastChannel opens one per tab.
 */

export interface LiveSource {
  onopen: (() => void) | null;
  onerror: (() => void) | null;
  onmessage: ((message: { data: string }) => void) | null;
  /** EventSource's: CONNECTING, OPEN or CLOSED (given up: the caller revives it). */
  readonly readyState: number;
  close(): void;
}

/** The tab's own EventSource for `url`. */
function ownSource(url: string): LiveSource {
  const source = new EventSource(url);
  const live: LiveSource = {
    onopen: null,
    onerror: null,
    onmessage: null,
    get readyState() {
      return source.readyState;
    },
    close: () => source.close(),
  };
  source.onopen = () => live.onopen?.();
  source.onerror = () => live.onerror?.();
  source.onmessage = (message: MessageEvent<string>) => live.onmessage?.({ data: message.data });
  return live;
}

/** What the holding tab relays; an "open" answering one tab's "hello" names it (`to`), the others ignore it. */
type Relayed = { kind: "open"; to?: string } | { kind: "error" } | { kind: "message"; data: string } | { kind: "hello"; from: string };

function isRelayed(value: unknown): value is Relayed {
  return typeof value === "object" && value !== null && "kind" in value && typeof value.kind === "string";
}

/** `url`'s stream shared across the browser's tabs (see above). */
function sharedSource(url: string): LiveSource {
  const name = `parley-live:${url}`;
  const channel = new BroadcastChannel(name);
  const stop = new AbortController();
  const self = Math.random().toString(36).slice(2);
  let own: LiveSource | undefined;
  let following: number = EventSource.CONNECTING;
  const live: LiveSource = {
    onopen: null,
    onerror: null,
    onmessage: null,
    // A follower is never "given up": the holding tab revives the stream.
    get readyState() {
      return own ? own.readyState : following;
    },
    close: () => {
      stop.abort();
      own?.close();
      channel.close();
    },
  };
  channel.onmessage = (message: MessageEvent<unknown>) => {
    const relayed = message.data;
    if (!isRelayed(relayed)) return;
    if (own) {
      // A tab that just joined asks whether the stream is open.
      if (relayed.kind === "hello" && own.readyState === EventSource.OPEN) channel.postMessage({ kind: "open", to: relayed.from } satisfies Relayed);
      return;
    }
    if (relayed.kind === "open") {
      if (relayed.to !== undefined && relayed.to !== self) return;
      following = EventSource.OPEN;
      live.onopen?.();
    } else if (relayed.kind === "error") {
      following = EventSource.CONNECTING;
      live.onerror?.();
    } else if (relayed.kind === "message") live.onmessage?.({ data: relayed.data });
  };
  channel.postMessage({ kind: "hello", from: self } satisfies Relayed);
  navigator.locks
    .request(name, { signal: stop.signal }, () => {
      if (stop.signal.aborted) return undefined;
      // This tab holds the stream now, until it closes it.
      const source = ownSource(url);
      own = source;
      source.onopen = () => {
        live.onopen?.();
        channel.postMessage({ kind: "open" } satisfies Relayed);
      };
      source.onerror = () => {
        live.onerror?.();
        channel.postMessage({ kind: "error" } satisfies Relayed);
      };
      source.onmessage = (message) => {
        live.onmessage?.(message);
        channel.postMessage({ kind: "message", data: message.data } satisfies Relayed);
      };
      return new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true }));
    })
    .catch(() => undefined);
  return live;
}

/** The live source for `url`: shared across tabs for a team's stream, the tab's own otherwise. */
export function openSource(url: string): LiveSource {
  const shareable = url.startsWith("/api/teams/") && typeof BroadcastChannel !== "undefined" && typeof navigator !== "undefined" && navigator.locks !== undefined;
  return shareable ? sharedSource(url) : ownSource(url);
}
