"use client";

import { type QueryKey, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { Status } from "@/components/chat/types";
import { type LiveEvent, useEventSource } from "@/components/events/use-event-source";

export interface TeamStreamOptions {
  /** The queries read again when the team's events change what they show. */
  refresh: QueryKey[];
  /** Which events change it. */
  refreshOn: (event: LiveEvent) => boolean;
  /** Changes are gathered for this long before the queries are read again. */
  delayMs: number;
  /**
   * Whether the first opening reads them again too: a list read before the stream was
   * subscribed may lack what happened in between. A reconnection always does (at once:
   * events may have been missed).
   */
  refreshOnFirstOpen: boolean;
}

/**
 * The team's live stream, for views of many sessions (the session list, the dashboard):
 * each session's run status the moment it changes (by session id, newer than any row
 * read; forgotten on a reconnection, when the rows read again tell), and the view's
 * queries read again, a few times a second at most, after the events it cares about.
 */
export function useTeamStream(teamId: string | undefined, options: TeamStreamOptions): ReadonlyMap<string, Status> {
  const queryClient = useQueryClient();
  const [statuses, setStatuses] = useState<ReadonlyMap<string, Status>>(new Map());
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const refresh = (delay: number) => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      for (const queryKey of options.refresh) void queryClient.invalidateQueries({ queryKey });
    }, delay);
  };
  useEventSource(teamId ? `/api/teams/${encodeURIComponent(teamId)}/events` : undefined, {
    onEvent: (event) => {
      if (event.name === "session.status") {
        const { sessionId, status } = event.payload;
        setStatuses((current) => new Map(current).set(sessionId, status));
      }
      if (options.refreshOn(event)) refresh(options.delayMs);
    },
    onOpen: (reconnect) => {
      if (reconnect) setStatuses(new Map());
      if (reconnect) refresh(0);
      else if (options.refreshOnFirstOpen) refresh(options.delayMs);
    },
  });
  return statuses;
}
