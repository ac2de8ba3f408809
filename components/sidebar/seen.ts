"use client";

import { useCallback, useSyncExternalStore } from "react";
import { localStore } from "@/components/ui/local-store";

/**
 * Unread markers: when this member last saw each session, kept in this browser's
 * localStorage (per user). Chosen over a table: it needs no write to the server on every
 * visit and no migration, and what it answers — "has this session changed since I last
 * looked at it here?" — is exact for the browser it is asked in; the price is that another
 * device starts from its own first visit. A session counts as seen up to the last change the
 * sidebar showed while it was open; one never opened counts as seen up to the moment this
 * browser first kept track (so an old team does not start with everything unread).
 */

export interface Seen {
  /** When this browser started keeping track (ms). */
  since: number;
  /** Session id → its last change seen (ms). */
  sessions: Record<string, number>;
}

/** Sessions remembered at most; the oldest are forgotten beyond that. */
export const MAX_REMEMBERED = 500;

/** Whether `session` changed since this member last saw it (never the session open now). */
export function isUnread(seen: Seen, session: { id: string; updated: number }, current: string | undefined): boolean {
  if (session.id === current) return false;
  return session.updated > Math.max(seen.sessions[session.id] ?? 0, seen.since);
}

/** `seen` with `sessionId` seen up to `updated` (the same object when nothing changes), the oldest forgotten beyond MAX_REMEMBERED. */
export function markSeen(seen: Seen, sessionId: string, updated: number): Seen {
  if ((seen.sessions[sessionId] ?? 0) >= updated) return seen;
  const entries = Object.entries({ ...seen.sessions, [sessionId]: updated }).sort((a, b) => b[1] - a[1]);
  return { since: seen.since, sessions: Object.fromEntries(entries.slice(0, MAX_REMEMBERED)) };
}

/** What localStorage holds, read leniently: anything unreadable starts over from `now`. */
export function parseSeen(raw: string | null, now: number): Seen {
  try {
    const value: unknown = raw === null ? null : JSON.parse(raw);
    if (typeof value === "object" && value !== null && "since" in value && typeof value.since === "number" && "sessions" in value && typeof value.sessions === "object" && value.sessions !== null) {
      const sessions: Record<string, number> = {};
      for (const [id, at] of Object.entries(value.sessions)) if (typeof at === "number") sessions[id] = at;
      return { since: value.since, sessions };
    }
  } catch {
    // Unreadable: start over below.
  }
  return { since: now, sessions: {} };
}

const store = localStore();
const cache = new Map<string, { raw: string | null; seen: Seen }>();
const EMPTY: Seen = { since: Number.POSITIVE_INFINITY, sessions: {} };

function read(key: string): Seen {
  const raw = window.localStorage.getItem(key);
  const cached = cache.get(key);
  if (cached && cached.raw === raw) return cached.seen;
  const seen = parseSeen(raw, Date.now());
  // The first read starts the record, so "since" stays put.
  if (raw === null) window.localStorage.setItem(key, JSON.stringify(seen));
  cache.set(key, { raw: window.localStorage.getItem(key), seen });
  return seen;
}

/** This member's record in this browser, and the way to mark a session seen (other tabs follow). */
export function useSeen(userId: string | undefined): { seen: Seen; mark: (sessionId: string, updated: number) => void } {
  const key = `parley.seen.${userId ?? "anonymous"}`;
  // On the server (and before hydration) nothing is unread.
  const seen = useSyncExternalStore(store.subscribe, () => read(key), () => EMPTY);
  const mark = useCallback(
    (sessionId: string, updated: number) => {
      const before = read(key);
      const after = markSeen(before, sessionId, updated);
      if (after === before) return;
      store.write(key, JSON.stringify(after));
    },
    [key],
  );
  return { seen, mark };
}
