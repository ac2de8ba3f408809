"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useLive } from "@/components/live/use-live";
import type { SessionInfo } from "@/components/session/types";
import { useTRPC, useTRPCClient } from "@/components/trpc/client";
import type { SessionSnapshot } from "./store";
import type { Status } from "./types";

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
 * A member's session kept live (components/live/use-live.ts): pages from `message.page`,
 * events from the session's stream. The session info read by `session.get` is merged
 * with the one events bring, and the query is kept current from them (and read again
 * after a reconnection, since changes may have been missed).
 */
export function useLiveSession(sessionId: string): LiveSession {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const fetched = useQuery(trpc.session.get.queryOptions({ sessionId }));
  const infoKey = trpc.session.get.queryKey({ sessionId });
  const live = useLive({
    sessionId,
    eventsUrl: `/api/sessions/${encodeURIComponent(sessionId)}/events`,
    info: fetched.data,
    fetchPage: async ({ before, limit }, signal) => ({ page: await client.message.page.query({ sessionId, before, limit }, { signal }) }),
    onInfo: (info) => queryClient.setQueryData(infoKey, info),
    onOpen: (reconnect) => {
      if (reconnect) void queryClient.invalidateQueries({ queryKey: infoKey });
    },
  });
  const { snapshot } = live;
  return { snapshot, info: snapshot.info ?? fetched.data, status: live.status, deleted: live.gone === "deleted", loadOlder: live.loadOlder, retry: live.retry };
}
