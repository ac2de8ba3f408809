"use client";

import type { Status } from "@/components/chat/types";
import { useTeamStream } from "@/components/events/use-team-stream";
import { useTRPC } from "@/components/trpc/client";

/** Changes are gathered for this long before the dashboard is re-read (totals, order, filters). */
const REFRESH_DELAY_MS = 500;

const CHANGES = new Set(["session.status", "session.created", "session.updated", "session.deleted", "permission.asked", "permission.replied"]);

/**
 * Keeps the dashboard live from the team's event stream: a session's run status is shown
 * the moment it changes, and any session-level change (or a permission question asked or
 * answered) re-reads the listed pages and the sessions waiting for approval shortly after,
 * so order, filters and totals follow. A reconnection re-reads at once.
 */
export function useDashboardEvents(teamId: string | undefined): ReadonlyMap<string, Status> {
  const trpc = useTRPC();
  return useTeamStream(teamId, {
    refresh: [trpc.dashboard.list.pathKey(), trpc.dashboard.waiting.pathKey()],
    refreshOn: (event) => CHANGES.has(event.name),
    delayMs: REFRESH_DELAY_MS,
    refreshOnFirstOpen: false,
  });
}
