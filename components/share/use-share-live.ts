"use client";

import { TRPCClientError } from "@trpc/client";
import type { PageInput, SessionSnapshot } from "@/components/chat/store";
import { type LivePage, useLive } from "@/components/live/use-live";
import { useTRPCClient } from "@/components/trpc/client";
import { errorMessage } from "@/components/ui/feedback";
import type { SharePage, SharedSession } from "./types";

/** After a dropped stream, how often at most the link is checked (it may have been revoked meanwhile). */
const PROBE_INTERVAL_MS = 2_000;

export interface ShareLive {
  snapshot: SessionSnapshot;
  /** The session shown, kept current by `session.updated`. */
  session: SharedSession;
  children: SharedSession[];
  /** The link was revoked (or its session deleted): nothing may be shown any more. */
  revoked: boolean;
  /** The session shown (a descendant of the shared one) was deleted. */
  deleted: boolean;
  connected: boolean;
  error: string | undefined;
  loadOlder: () => void;
}

/** The store wants the cursor present (undefined on the oldest page); the wire type makes it optional. */
function pageOf(messages: SharePage["messages"]): PageInput {
  return { messages: messages.messages, cursor: messages.cursor, corrupt: messages.corrupt };
}

function livePage(page: SharePage): LivePage {
  return { page: pageOf(page.messages), info: page.session, children: page.children };
}

function isNotFound(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "NOT_FOUND";
}

/**
 * A session seen through a share link, kept live (components/live/use-live.ts): the
 * server-rendered page first, then the share's stream (the shared session and its
 * descendants) — events of the session shown to its messages, child sessions to the
 * children list, `share.revoked` ends everything. Each (re)opening re-reads the newest
 * page with the session and its children; a link that answers NOT_FOUND was revoked.
 */
export function useShareLive(initial: SharePage): ShareLive {
  const client = useTRPCClient();
  const shareId = initial.share.id;
  const shownId = initial.session.id;
  const sessionId = shownId === initial.root.id ? undefined : shownId;
  const live = useLive({
    sessionId: shownId,
    eventsUrl: `/api/share/${encodeURIComponent(shareId)}/events`,
    initial: livePage(initial),
    fetchPage: async ({ before, limit }, signal) => livePage(await client.share.page.query({ shareId, sessionId, before, limit }, { signal })),
    goneOn: (error) => (isNotFound(error) ? "revoked" : undefined),
    describeError: (failed, error) => `${failed === "older" ? "Could not load older messages" : "Could not refresh"}: ${errorMessage(error)}`,
    probeMs: PROBE_INTERVAL_MS,
  });
  const { snapshot } = live;
  return {
    snapshot,
    session: snapshot.info ?? initial.session,
    children: live.children,
    revoked: live.gone === "revoked",
    deleted: live.gone === "deleted",
    connected: live.connected,
    error: snapshot.error,
    loadOlder: live.loadOlder,
  };
}
