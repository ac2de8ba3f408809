"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { type Envelope, useEventSource } from "@/components/events/use-event-source";
import type { SessionInfo } from "@/components/session/types";
import { useTRPC, useTRPCClient } from "@/components/trpc/client";
import { errorMessage } from "@/components/ui/feedback";
import { type SessionSnapshot, SessionStore } from "./store";
import type { Status } from "./types";

/** Messages per page: the newest page is shown first, older ones are fetched on scroll. */
export const PAGE_SIZE = 50;

export interface LiveSession {
  /** Messages (shown ones, oldest first), paging state and load errors. */
  snapshot: SessionSnapshot;
  /** The newest session info: from events or the fetch, whichever is newer. */
  info: SessionInfo | undefined;
  /** The run status from the session's stream; undefined until it is known. */
  status: Status | undefined;
  /** Another client (or tab) deleted the session while it was open. */
  deleted: boolean;
  /** Fetch the page before the oldest shown message (no-op while one is loading or none is left). */
  loadOlder: () => void;
  /** Fetch again what failed (the newest page, or the older page). */
  retry: () => void;
}

/**
 * Subscribe with at most one notification per animation frame: a fast stream of deltas
 * re-renders the chat once per frame, not once per token.
 */
function frameSubscribe(store: SessionStore) {
  return (notify: () => void) => {
    let frame = 0;
    const unsubscribe = store.subscribe(() => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        notify();
      });
    });
    return () => {
      if (frame) cancelAnimationFrame(frame);
      unsubscribe();
    };
  };
}

/**
 * A session kept live in a SessionStore: the newest page of messages is fetched at once
 * (to show it without waiting for the stream), and again each time the session's SSE
 * stream (re)opens, so nothing written before the subscription is missed; older pages on
 * demand. Events and pages merge in the store whatever their order.
 */
export function useLiveSession(sessionId: string): LiveSession {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const [store] = useState(() => new SessionStore(sessionId));
  const [subscribe] = useState(() => frameSubscribe(store));
  const snapshot = useSyncExternalStore(subscribe, store.getSnapshot, store.getSnapshot);
  const [deleted, setDeleted] = useState(false);
  const fetched = useQuery(trpc.session.get.queryOptions({ sessionId }));
  const fetches = useRef(new Set<AbortController>());
  const newestStarted = useRef(0);
  const newestApplied = useRef(0);
  const failed = useRef<"newest" | "older">("newest");

  const fetchNewest = useCallback(async () => {
    // Fetches may overlap (mount, then the stream opening): each is applied unless a
    // later one was applied first.
    const seq = ++newestStarted.current;
    const controller = new AbortController();
    fetches.current.add(controller);
    try {
      const page = await client.message.page.query({ sessionId, limit: PAGE_SIZE }, { signal: controller.signal });
      if (controller.signal.aborted || seq < newestApplied.current) return;
      newestApplied.current = seq;
      store.applyPage(page, false);
      if (store.getSnapshot().error) store.setError(undefined);
    } catch (error) {
      if (controller.signal.aborted || seq < newestApplied.current) return;
      failed.current = "newest";
      store.setError(errorMessage(error));
    } finally {
      fetches.current.delete(controller);
    }
  }, [client, sessionId, store]);

  const loadOlder = useCallback(() => {
    const current = store.getSnapshot();
    if (!current.loaded || !current.hasOlder || current.loadingOlder || current.olderCursor === undefined) return;
    const before = current.olderCursor;
    const controller = new AbortController();
    fetches.current.add(controller);
    store.setLoadingOlder(true);
    void client.message.page
      .query({ sessionId, before, limit: PAGE_SIZE }, { signal: controller.signal })
      .then(
        (page) => {
          // A reconnect may have restarted paging meanwhile: this page no longer fits.
          if (!controller.signal.aborted && store.getSnapshot().olderCursor === before) store.applyPage(page, true);
          if (store.getSnapshot().error) store.setError(undefined);
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          failed.current = "older";
          store.setError(errorMessage(error));
        },
      )
      .finally(() => {
        fetches.current.delete(controller);
        store.setLoadingOlder(false);
      });
  }, [client, sessionId, store]);

  useEffect(() => {
    // Show the stored messages at once; the stream's opening fetches them again (below).
    void fetchNewest();
    const pending = fetches.current;
    return () => {
      for (const controller of pending) controller.abort();
    };
  }, [fetchNewest]);

  useEffect(() => {
    if (fetched.data) store.setInfo(fetched.data);
  }, [fetched.data, store]);

  const onEvent = (event: Envelope) => {
    switch (event.name) {
      case "session.deleted":
        setDeleted(true);
        return;
      case "session.updated":
      case "session.created": {
        store.apply(event);
        const info = store.getSnapshot().info;
        // The stream's first event is the session as it is now, run status included.
        if (event.id.startsWith("init-") && info?.status) store.setStatus(info.status);
        if (info) queryClient.setQueryData(trpc.session.get.queryKey({ sessionId }), info);
        return;
      }
      default:
        store.apply(event);
    }
  };

  useEventSource(`/api/sessions/${encodeURIComponent(sessionId)}/events`, {
    onEvent,
    onOpen: (reconnect) => {
      // Subscribed now: whatever is stored from here on is either in this page or arrives
      // as an event (the page fetched at mount may have missed what came in between).
      void fetchNewest();
      if (reconnect) void queryClient.invalidateQueries({ queryKey: trpc.session.get.queryKey({ sessionId }) });
    },
  });

  const retry = useCallback(() => {
    if (failed.current === "older") loadOlder();
    else void fetchNewest();
  }, [fetchNewest, loadOlder]);

  return { snapshot, info: snapshot.info ?? fetched.data, status: snapshot.statusKnown ? snapshot.status : undefined, deleted, loadOlder, retry };
}
