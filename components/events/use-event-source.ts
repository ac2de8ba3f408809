"use client";

import { useEffect, useRef } from "react";
import type { Envelope } from "@/server/bus/bus";

export type { Envelope };

export interface EventSourceHandlers {
  onEvent: (event: Envelope) => void;
  /** Called on every (re)connection; `reconnect` is false for the first one. */
  onOpen?: (reconnect: boolean) => void;
  /** The connection failed or dropped (the browser retries unless the server refused it). */
  onError?: () => void;
}

function isEnvelope(value: unknown): value is Envelope {
  if (typeof value !== "object" || value === null) return false;
  return "name" in value && typeof value.name === "string" && "payload" in value && "id" in value && typeof value.id === "string";
}

interface Listener {
  handlers: { current: EventSourceHandlers };
  /** Whether this listener has seen its first open. */
  opened: boolean;
}

interface Connection {
  source: EventSource;
  listeners: Set<Listener>;
  open: boolean;
  seen: Set<string>;
}

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

function connect(url: string): Connection {
  const existing = connections.get(url);
  // A stream the server ended for good (404, revoked share) is not shared: start anew.
  if (existing && existing.source.readyState !== EventSource.CLOSED) return existing;
  const connection: Connection = { source: new EventSource(url), listeners: new Set(), open: false, seen: new Set() };
  const { source, listeners, seen } = connection;
  source.onopen = () => {
    connection.open = true;
    for (const listener of [...listeners]) notifyOpen(listener);
  };
  source.onerror = () => {
    connection.open = false;
    for (const listener of [...listeners]) listener.handlers.current.onError?.();
  };
  source.onmessage = (message: MessageEvent<string>) => {
    let data: unknown;
    try {
      data = JSON.parse(message.data);
    } catch (error) {
      console.error("[events] unreadable event", error);
      return;
    }
    if (!isEnvelope(data)) return;
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
      if (connections.get(url) === connection) connections.delete(url);
    }
  };
}
