import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router";

/** What a share page shows (server/share/shared-session.ts `Page`): the session, a page of its messages, its children. */
export type SharePage = inferRouterOutputs<AppRouter>["share"]["page"];
export type SharedSession = SharePage["session"];
/** One of the team's shared links, as `share.listShares` returns it. */
export type SharedLink = inferRouterOutputs<AppRouter>["share"]["listShares"]["items"][number];

/** The address of a session inside a share link: the shared session itself, or one of its descendants. */
export function shareHref(shareId: string, rootId: string, sessionId: string): string {
  const base = `/share/${encodeURIComponent(shareId)}`;
  return sessionId === rootId ? base : `${base}?session=${encodeURIComponent(sessionId)}`;
}

/** A share URL made absolute for copying (the server gives a relative one without `publicUrl`). */
export function absoluteUrl(url: string, origin: string): string {
  return new URL(url, origin).toString();
}
