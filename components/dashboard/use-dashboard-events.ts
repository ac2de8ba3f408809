"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { Status } from "@/components/chat/types";
import { useEventSource } from "@/components/events/use-event-source";
import { useTRPC } from "@/components/trpc/client";

/** Changes are gathered for this long before the dashboard is re-read (totals, order, filters). */
const REFRESH_DELAY_MS = 500;

/**
 * Keeps the dashboard live from the team's event stream: a session's run status is
 * shown the moment it changes (returned by session id, newer than any row read), and any
 * session-level change (or a permission question asked or answered) re-reads the listed
 * pages and the sessions waiting for approval shortly after, so order, filters and totals follow. A reconnection re-reads at once (events may have been missed).
 */
export function useDashboardEvents(teamId: string | undefined): ReadonlyMap<string, Status> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [statuses, setStatuses] = useState<ReadonlyMap<string, Status>>(new Map());
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const refresh = (delay: number) => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      void queryClient.invalidateQueries({ queryKey: trpc.dashboard.list.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.dashboard.waiting.pathKey() });
    }, delay);
  };

  useEventSource(teamId ? `/api/teams/${encodeURIComponent(teamId)}/events` : undefined, {
    onEvent: (event) => {
      if (event.name === "session.status") {
        const { sessionId, status } = event.payload;
        setStatuses((current) => new Map(current).set(sessionId, status));
        refresh(REFRESH_DELAY_MS);
        return;
      }
      if (event.name === "session.created" || event.name === "session.updated" || event.name === "session.deleted") refresh(REFRESH_DELAY_MS);
      // A question asked or answered: the sessions waiting for approval change.
      if (event.name === "permission.asked" || event.name === "permission.replied") refresh(REFRESH_DELAY_MS);
    },
    onOpen: (reconnect) => {
      if (!reconnect) return;
      setStatuses(new Map());
      refresh(0);
    },
  });
  return statuses;
}
