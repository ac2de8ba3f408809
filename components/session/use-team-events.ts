"use client";

import { useQuery } from "@tanstack/react-query";
import type { Status } from "@/components/chat/types";
import { useTeamStream } from "@/components/events/use-team-stream";
import { useTRPC } from "@/components/trpc/client";

/**
 * Keeps the session list live: any session event of the team (created, updated, deleted,
 * status) reads the list again, at most a few times per second, and on every opening of
 * the stream; a session's run status is returned the moment it changes.
 */
export function useTeamEvents(): ReadonlyMap<string, Status> {
  const trpc = useTRPC();
  const teamId = useQuery(trpc.team.current.queryOptions()).data?.id;
  return useTeamStream(teamId, {
    // The list and, while the member searches, its search results.
    refresh: [trpc.session.list.pathKey(), trpc.search.sessions.pathKey()],
    refreshOn: (event) => event.name.startsWith("session.") && event.name !== "session.diff",
    delayMs: 300,
    refreshOnFirstOpen: true,
  });
}
