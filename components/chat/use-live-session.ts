"use client";

import { type QueryKey, useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { type Envelope, useEventSource } from "@/components/events/use-event-source";
import type { SessionInfo } from "@/components/session/types";
import { useTRPC, useTRPCClient } from "@/components/trpc/client";
import { type MessageEvent, type MessagesData, applyMessageEvent, asMessageEvent, replayOnPage } from "./message-cache";
import type { MessagePage, Status } from "./types";

const PAGE_SIZE = 50;
/**
 * Text deltas are persisted up to 250 ms after they are published (server/session/writer.ts),
 * so a page read from the database can be behind events already received. Events seen
 * shortly before a fetch started, and all seen during it, are replayed over its result.
 */
const REPLAY_BEFORE_FETCH_MS = 2_000;
/** Fetch anyway when the event stream takes this long to open (it is refetched once it does). */
const OPEN_TIMEOUT_MS = 2_000;
const LOG_KEEP_MS = 60_000;

export function messagesKey(sessionId: string): QueryKey {
  return ["parley", "messages", sessionId];
}

export interface LiveSession {
  messages: ReturnType<typeof useMessagesQuery>;
  status: Status | undefined;
  /** Another client (or tab) deleted the session while it was open. */
  deleted: boolean;
}

function useMessagesQuery(sessionId: string, enabled: boolean, log: { current: { at: number; event: MessageEvent }[] }) {
  const client = useTRPCClient();
  return useInfiniteQuery<MessagePage, Error, MessagesData, QueryKey, string | undefined>({
    queryKey: messagesKey(sessionId),
    enabled,
    initialPageParam: undefined,
    getNextPageParam: (page) => page.cursor,
    queryFn: async ({ pageParam, signal }) => {
      const started = Date.now();
      const page = await client.message.page.query({ sessionId, before: pageParam, limit: PAGE_SIZE }, { signal });
      const recent = log.current.filter((entry) => entry.at >= started - REPLAY_BEFORE_FETCH_MS).map((entry) => entry.event);
      return replayOnPage(page, recent, pageParam === undefined);
    },
  });
}

/**
 * A session's messages kept live: the newest page (and older ones on demand) from
 * `message.page`, then every event of the session's SSE stream applied to the cache.
 * The first fetch waits for the stream to be open (briefly) so nothing published in
 * between is missed; whatever was fetched or cached before the stream opened, and
 * everything after a reconnect, is refetched.
 */
export function useLiveSession(sessionId: string): LiveSession {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const log = useRef<{ at: number; event: MessageEvent }[]>([]);
  const [ready, setReady] = useState(false);
  const [status, setStatus] = useState<Status>();
  const [deleted, setDeleted] = useState(false);
  const messages = useMessagesQuery(sessionId, ready, log);
  useEffect(() => {
    const timer = setTimeout(() => setReady(true), OPEN_TIMEOUT_MS);
    return () => clearTimeout(timer);
  }, []);

  const onEvent = (event: Envelope) => {
    const message = asMessageEvent(event);
    if (message) {
      const now = Date.now();
      log.current.push({ at: now, event: message });
      while (log.current.length > 10_000 || (log.current[0] && log.current[0].at < now - LOG_KEEP_MS)) log.current.shift();
      let stale = false;
      queryClient.setQueryData<MessagesData>(messagesKey(sessionId), (data) => {
        if (!data) return data;
        const result = applyMessageEvent(data, message);
        stale = result.stale;
        return result.data;
      });
      if (stale) void queryClient.invalidateQueries({ queryKey: messagesKey(sessionId) });
      return;
    }
    switch (event.name) {
      case "session.updated":
      case "session.created": {
        const { info } = event.payload as { info: SessionInfo };
        queryClient.setQueryData(trpc.session.get.queryKey({ sessionId }), info);
        return;
      }
      case "session.deleted":
        setDeleted(true);
        return;
      case "session.status":
        setStatus((event.payload as { status: Status }).status);
        return;
    }
  };

  useEventSource(`/api/sessions/${encodeURIComponent(sessionId)}/events`, {
    onEvent,
    onOpen: (reconnect) => {
      setReady(true);
      const state = queryClient.getQueryState(messagesKey(sessionId));
      const fetchedBefore = state !== undefined && (state.dataUpdatedAt > 0 || state.fetchStatus === "fetching");
      if (reconnect || fetchedBefore) void queryClient.invalidateQueries({ queryKey: messagesKey(sessionId) });
      if (reconnect) void queryClient.invalidateQueries({ queryKey: trpc.session.get.queryKey({ sessionId }) });
    },
    onError: () => setReady(true),
  });

  return { messages, status, deleted };
}
