"use client";

import { useQuery } from "@tanstack/react-query";
import type { Status } from "@/components/chat/types";
import { usePageVisible } from "@/components/events/use-page-visible";
import { useTeamStream } from "@/components/events/use-team-stream";
import { useTRPC } from "@/components/trpc/client";
import type { AppRouter } from "@/server/trpc/router";
import type { inferRouterOutputs } from "@trpc/server";

export type SidebarData = inferRouterOutputs<AppRouter>["sidebar"]["recent"];
export type SidebarProject = SidebarData["projects"][number];
export type SidebarSession = SidebarProject["sessions"][number];

/**
 * The sidebar's sessions, kept live by the team's stream while the tab is shown: a session
 * created, changed, deleted or asking a question reads them again (a few times a second at
 * most), and a session's run status is taken from its status event the moment it changes.
 */
export function useSidebar(): { data: SidebarData | undefined; error: unknown; statuses: ReadonlyMap<string, Status> } {
  const trpc = useTRPC();
  const teamId = useQuery(trpc.team.current.queryOptions()).data?.id;
  const visible = usePageVisible();
  const recent = useQuery(trpc.sidebar.recent.queryOptions({}));
  // While the tab is hidden its stream is let go; shown again, the opening reads the sessions again.
  const statuses = useTeamStream(visible ? teamId : undefined, {
    refresh: [trpc.sidebar.recent.pathKey()],
    refreshOn: (event) => (event.name.startsWith("session.") && event.name !== "session.diff") || event.name.startsWith("permission."),
    delayMs: 300,
    refreshOnFirstOpen: true,
  });
  return { data: recent.data, error: recent.error, statuses };
}
