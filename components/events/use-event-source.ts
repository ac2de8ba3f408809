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

/**
 * Subscribe to one of Parley's SSE routes while mounted. The browser reconnects by
 * itself (the server sends `retry: 1000`); each `data:` line is one JSON envelope.
 * Handlers are read through a ref so a re-render never reconnects.
 */
export function useEventSource(url: string | undefined, handlers: EventSourceHandlers): void {
  const ref = useRef(handlers);
  useEffect(() => {
    ref.current = handlers;
  });
  useEffect(() => {
    if (!url) return;
    const source = new EventSource(url);
    let opened = false;
    const seen = new Set<string>();
    source.onopen = () => {
      ref.current.onOpen?.(opened);
      opened = true;
    };
    source.onerror = () => ref.current.onError?.();
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
      ref.current.onEvent(data);
    };
    return () => source.close();
  }, [url]);
}
