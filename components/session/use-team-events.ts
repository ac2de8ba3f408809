"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { Status } from "@/components/chat/types";
import { useEventSource } from "@/components/events/use-event-source";
import { useTRPC } from "@/components/trpc/client";

/**
 * Keeps the session list live: any session event of the team (created, updated,
 * deleted, status) refreshes the list, at most a few times per second; a session's run
 * status is returned the moment it changes (by session id, newer than any row read).
 */
export function useTeamEvents(): ReadonlyMap<string, Status> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const teamId = useQuery(trpc.team.current.queryOptions()).data?.id;
  const [statuses, setStatuses] = useState<ReadonlyMap<string, Status>>(new Map());
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const refresh = () => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      void queryClient.invalidateQueries({ queryKey: trpc.session.list.pathKey() });
    }, 300);
  };
  useEventSource(teamId ? `/api/teams/${encodeURIComponent(teamId)}/events` : undefined, {
    onEvent: (event) => {
      if (event.name === "session.status") {
        const { sessionId, status } = event.payload;
        setStatuses((current) => new Map(current).set(sessionId, status));
      }
      if (event.name.startsWith("session.") && event.name !== "session.diff") refresh();
    },
    // The list may have been read before the stream was subscribed (or while it was away):
    // a session created in between has no event here, so read it again on every open
    // (statuses heard before a reconnection may be stale: the rows read then tell).
    onOpen: (reconnect) => {
      if (reconnect) setStatuses(new Map());
      refresh();
    },
  });
  return statuses;
}
