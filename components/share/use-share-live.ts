"use client";

import { TRPCClientError } from "@trpc/client";
import { useRef, useState, useSyncExternalStore } from "react";
import { type PageInput, type SessionSnapshot, SessionStore } from "@/components/chat/store";
import type { Status } from "@/components/chat/types";
import { type Envelope, useEventSource } from "@/components/events/use-event-source";
import { useTRPCClient } from "@/components/trpc/client";
import { errorMessage } from "@/components/ui/feedback";
import type { SharePage, SharedSession } from "./types";

const PAGE_SIZE = 50;
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

function isNotFound(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "NOT_FOUND";
}

/** Children newest first, as the server lists them (session ids sort newest first). */
function upsertChild(list: SharedSession[], info: SharedSession): SharedSession[] {
  const current = list.find((c) => c.id === info.id);
  if (current && current.time.updated > info.time.updated) return list;
  return [...list.filter((c) => c.id !== info.id), info].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/**
 * A session seen through a share link, kept live: the server-rendered page of messages
 * goes into a SessionStore, then the share's SSE stream (the shared session and its
 * descendants) is applied to it — events of the session shown to the store, child
 * sessions to the children list, `share.revoked` ends everything. Each (re)connection
 * re-reads the newest page, since it was read before the stream was subscribed; the
 * store merges so nothing goes backwards or repeats. Older pages load on demand.
 */
export function useShareLive(initial: SharePage): ShareLive {
  const client = useTRPCClient();
  const shareId = initial.share.id;
  const shownId = initial.session.id;
  const input = { shareId, sessionId: shownId === initial.root.id ? undefined : shownId };
  const [store] = useState(() => {
    const store = new SessionStore(shownId);
    store.setInfo(initial.session);
    if (initial.session.status) store.setStatus(initial.session.status);
    store.applyPage(pageOf(initial.messages), false);
    return store;
  });
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  const [children, setChildren] = useState(initial.children);
  const [revoked, setRevoked] = useState(false);
  const [deleted, setDeleted] = useState(false);
  const [connected, setConnected] = useState(false);
  const [error, setError] = useState<string>();
  const statusAt = useRef(0);
  const probedAt = useRef(0);

  const failed = (cause: unknown, what: string) => {
    if (isNotFound(cause)) setRevoked(true);
    else setError(`${what}: ${errorMessage(cause)}`);
  };

  /** Re-read the newest page and the session (after the stream (re)opened, or to check the link). */
  const refresh = async () => {
    const started = Date.now();
    try {
      const page = await client.share.page.query({ ...input, limit: PAGE_SIZE });
      store.applyPage(pageOf(page.messages), false);
      store.setInfo(page.session);
      // A status event received while the page was read is newer than the page.
      if (statusAt.current < started) store.setStatus(page.session.status ?? { type: "idle" });
      setChildren((list) => page.children.reduce(upsertChild, list));
      setError(undefined);
    } catch (cause) {
      failed(cause, "Could not refresh");
    }
  };

  const onEvent = (event: Envelope) => {
    switch (event.name) {
      case "share.revoked":
        setRevoked(true);
        return;
      case "session.created":
      case "session.updated": {
        const { info } = event.payload as { info: SharedSession };
        if (info.id === shownId) store.apply(event);
        else if (info.parentId === shownId) setChildren((list) => upsertChild(list, info));
        return;
      }
      case "session.deleted": {
        const { info } = event.payload as { info: SharedSession };
        if (info.id === shownId) setDeleted(true);
        else setChildren((list) => list.filter((c) => c.id !== info.id));
        return;
      }
      case "session.status": {
        const { sessionId } = event.payload as { sessionId: string; status: Status };
        if (sessionId !== shownId) return;
        statusAt.current = Date.now();
        store.apply(event);
        return;
      }
      default:
        if (event.scope.sessionId === shownId) store.apply(event);
    }
  };

  useEventSource(revoked || deleted ? undefined : `/api/share/${encodeURIComponent(shareId)}/events`, {
    onEvent,
    onOpen: () => {
      setConnected(true);
      void refresh();
    },
    onError: () => {
      setConnected(false);
      // The browser reconnects by itself, but not after a 404 (the link was revoked while the stream was down).
      const now = Date.now();
      if (now - probedAt.current < PROBE_INTERVAL_MS) return;
      probedAt.current = now;
      void refresh();
    },
  });

  const loadOlder = () => {
    const { olderCursor: before, loadingOlder } = store.getSnapshot();
    if (!before || loadingOlder) return;
    store.setLoadingOlder(true);
    client.share.page
      .query({ ...input, before, limit: PAGE_SIZE })
      .then((page) => {
        store.applyPage(pageOf(page.messages), true);
        setError(undefined);
      })
      .catch((cause: unknown) => failed(cause, "Could not load older messages"))
      .finally(() => store.setLoadingOlder(false));
  };

  return {
    snapshot,
    session: snapshot.info ?? initial.session,
    children,
    revoked,
    deleted,
    connected,
    error,
    loadOlder,
  };
}
