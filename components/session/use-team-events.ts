"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useEventSource } from "@/components/events/use-event-source";
import { useTRPC } from "@/components/trpc/client";

/**
 * Keeps the session list live: any session event of the team (created, updated,
 * deleted, status) refreshes the list, at most a few times per second.
 */
export function useTeamEvents(): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const teamId = useQuery(trpc.team.current.queryOptions()).data?.id;
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
      if (event.name.startsWith("session.") && event.name !== "session.diff") refresh();
    },
    // The list may have been read before the stream was subscribed (or while it was away):
    // a session created in between has no event here, so read it again on every open.
    onOpen: () => refresh(),
  });
}
