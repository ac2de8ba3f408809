"use client";

import { useEffect, useRef } from "react";
import type { LiveEvent } from "@/server/live/event-types";
import { type LiveSource, openSource } from "./live-source";

export type { LiveEvent };

export interface EventSourceHandlers {
  onEvent: (event: LiveEvent) => void;
  /** Called on every (re)connection; `reconnect` is false for the first one. */
  onOpen?: (reconnect: boolean) => void;
  /** The connection failed or dropped (the browser retries unless the server refused it). */
  onError?: () => void;
}

/** An event as the server's live streams send it (their payloads are the server's own: not validated again here). */
export function isLiveEvent(value: unknown): value is LiveEvent {
  if (typeof value !== "object" || value === null) return false;
  return "name" in value && typeof value.name === "string" && "payload" in value && "id" in value && typeof value.id === "string" && "scope" in value && typeof value.scope === "object";
}

interface Listener {
  handlers: { current: EventSourceHandlers };
  /** Whether this listener has seen its first open. */
  opened: boolean;
}

interface Connection {
  url: string;
  source: LiveSource;
  listeners: Set<Listener>;
  open: boolean;
  seen: Set<string>;
  /** Wait before the next attempt to revive a stream the browser gave up on. */
  retryMs: number;
  revive: ReturnType<typeof setTimeout> | undefined;
}

export const REVIVE_FIRST_MS = 1_000;
export const REVIVE_MAX_MS = 30_000;

/**
 * One EventSource per URL per tab, shared by every hook that wants it: browsers allow
 * about six HTTP/1.1 connections per host across all tabs, so a page whose parts each
 * opened their own stream would stall its third tab.
 */
const connections = new Map<string, Connection>();

function notifyOpen(listener: Listener): void {
  listener.handlers.current.onOpen?.(listener.opened);
  listener.opened = true;
}

/** Give the connection a new EventSource. */
function attach(connection: Connection): void {
  // The old one has given up (closing it lets go of what it holds: a shared stream's lock).
  connection.source.close();
  connection.source = openSource(connection.url);
  wire(connection);
}

/** Deliver what the connection's EventSource receives to its listeners. */
function wire(connection: Connection): void {
  const { listeners, seen, source } = connection;
  // A source that was replaced has nothing more to say.
  const current = () => connection.source === source;
  source.onopen = () => {
    if (!current()) return;
    connection.open = true;
    connection.retryMs = REVIVE_FIRST_MS;
    for (const listener of [...listeners]) notifyOpen(listener);
  };
  source.onerror = () => {
    if (!current()) return;
    connection.open = false;
    for (const listener of [...listeners]) listener.handlers.current.onError?.();
    // The browser retries a dropped connection by itself, but gives up for good on an
    // error response (a 5xx while the server restarts, a 401 until the user signs in
    // again): try again later, more slowly each time, while anyone listens.
    if (source.readyState === EventSource.CLOSED) scheduleRevive(connection);
  };
  source.onmessage = (message) => {
    if (!current()) return;
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch (error) {
      console.error("[events] unreadable event", error);
      return;
    }
    if (!isLiveEvent(data)) return;
    // A replayed event (same id) must not be applied twice.
    if (seen.has(data.id)) return;
    seen.add(data.id);
    if (seen.size > 5000) seen.delete(seen.values().next().value ?? "");
    // One listener failing on an event must not keep it from the others.
    for (const listener of [...listeners]) {
      try {
        listener.handlers.current.onEvent(data);
      } catch (error) {
        console.error(`[events] a listener failed on ${data.name}`, error);
      }
    }
  };
}

function scheduleRevive(connection: Connection): void {
  if (connection.revive !== undefined || connection.listeners.size === 0) return;
  const delay = connection.retryMs;
  connection.retryMs = Math.min(delay * 2, REVIVE_MAX_MS);
  connection.revive = setTimeout(() => {
    connection.revive = undefined;
    if (connection.listeners.size === 0 || connections.get(connection.url) !== connection) return;
    attach(connection);
  }, delay);
}

function connect(url: string): Connection {
  const existing = connections.get(url);
  if (existing) {
    // A stream the browser gave up on is tried again at once for a newcomer (the user
    // came back to the page), instead of at the end of its backoff.
    if (existing.source.readyState === EventSource.CLOSED) {
      clearTimeout(existing.revive);
      existing.revive = undefined;
      existing.retryMs = REVIVE_FIRST_MS;
      attach(existing);
    }
    return existing;
  }
  const connection: Connection = {
    url,
    source: openSource(url),
    listeners: new Set(),
    open: false,
    seen: new Set(),
    retryMs: REVIVE_FIRST_MS,
    revive: undefined,
  };
  wire(connection);
  connections.set(url, connection);
  return connection;
}

/**
 * Subscribe to one of Parley's SSE routes while mounted. The browser reconnects by
 * itself (the server sends `retry: 1000`); each `data:` line is one JSON envelope.
 * Handlers are read through a ref so a re-render never reconnects. Hooks of one tab
 * asking for the same URL share one connection; one that joins a connection already
 * open gets its `onOpen(false)` at once (and reads the stored state then, as on any open).
 */
export function useEventSource(url: string | undefined, handlers: EventSourceHandlers): void {
  const ref = useRef(handlers);
  useEffect(() => {
    ref.current = handlers;
  });
  useEffect(() => (url ? subscribe(url, ref) : undefined), [url]);
}

/**
 * Join (or open) the tab's connection to `url`; returns the unsubscribe, which closes
 * the connection when its last listener leaves. `handlers` is read at each event.
 */
export function subscribe(url: string, handlers: { current: EventSourceHandlers }): () => void {
  const connection = connect(url);
  const listener: Listener = { handlers, opened: false };
  connection.listeners.add(listener);
  if (connection.open) queueMicrotask(() => connection.listeners.has(listener) && notifyOpen(listener));
  return () => {
    connection.listeners.delete(listener);
    if (connection.listeners.size === 0) {
      connection.source.close();
      clearTimeout(connection.revive);
      connection.revive = undefined;
      if (connections.get(url) === connection) connections.delete(url);
    }
  };
}
