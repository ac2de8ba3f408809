"use client";

import { useEffect, useState, useSyncExternalStore } from "react";
import type { SessionSnapshot } from "@/components/chat/store";
import { useEventSource } from "@/components/events/use-event-source";
import type { Status } from "@/server/session/events";
import type { Info } from "@/server/session/info";
import { LiveController } from "./controller";
import { throttledSubscribe } from "./throttle";
import type { Gone, LiveTransport } from "./transport";

export type { Fetch, Gone, LivePage, LiveTransport } from "./transport";
export { PAGE_SIZE } from "./controller";

export interface LiveView {
  /** Messages (shown ones, oldest first), paging state and load errors. */
  snapshot: SessionSnapshot;
  /** The run status from the stream or a read; undefined until it is known. */
  status: Status | undefined;
  /** Direct children of the session shown, newest first (kept when the transport reads them). */
  children: Info[];
  /** Set once there is nothing more to show: the session was deleted, or the share link revoked. */
  gone: Gone | undefined;
  /** Whether the stream is open. */
  connected: boolean;
  /** Fetch the page before the oldest shown message (no-op while one is loading or none is left). */
  loadOlder: () => void;
  /** Fetch again what failed (the newest page, or the older page). */
  retry: () => void;
}

/**
 * One session kept live over a transport (see LiveController): its stored messages and
 * the events of its SSE stream, merged. The stream closes once the view is gone.
 */
export function useLive(transport: LiveTransport): LiveView {
  const [live] = useState(() => new LiveController(transport));
  useEffect(() => {
    live.setTransport(transport);
  });
  // A fast stream of deltas re-renders the view a few times a second, not once per token (throttle.ts).
  const [subscribe] = useState(() => throttledSubscribe(live.store.subscribe));
  const snapshot = useSyncExternalStore(subscribe, live.store.getSnapshot, live.store.getSnapshot);
  const state = useSyncExternalStore(live.subscribe, live.getState, live.getState);
  useEffect(() => live.start(), [live]);
  const { info } = transport;
  useEffect(() => {
    if (info) live.store.setInfo(info);
  }, [info, live]);
  useEventSource(state.gone ? undefined : transport.eventsUrl, live.handlers);
  return {
    snapshot,
    status: snapshot.statusKnown ? snapshot.status : undefined,
    children: state.children,
    gone: state.gone,
    connected: state.connected,
    loadOlder: live.loadOlder,
    retry: live.retry,
  };
}
