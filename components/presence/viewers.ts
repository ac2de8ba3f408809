import type { LiveEvent } from "@/server/live/event-types";
import type { Viewer } from "@/server/presence/book";

/**
 * The browser's copy of a team's presence (server/presence): one entry per tab viewing a
 * session, each holding until its heartbeat's time to live runs out by this browser's
 * clock (`until`), renewed by the next heartbeat heard on the team's stream. Pure, so the
 * hook (use-session-viewers.ts) and its test share it.
 */

export interface Held {
  sessionId: string;
  user: { id: string; name: string };
  client: string;
  typing: boolean;
  /** Local clock time (ms) this entry ends. */
  until: number;
}

export type Presence = ReadonlyMap<string, Held>;

const keyOf = (sessionId: string, userId: string, client: string) => `${sessionId}\0${userId}\0${client}`;

/** What the server listed (`presence.list`, asked at `now`) added to what is held, unless a newer heartbeat is held. */
export function withListed(held: Presence, listed: readonly Viewer[], now: number): Presence {
  const next = new Map(held);
  for (const viewer of listed) {
    const key = keyOf(viewer.sessionId, viewer.user.id, viewer.client);
    const until = now + viewer.ttlMs;
    // A heartbeat heard meanwhile is newer than the listing.
    if ((next.get(key)?.until ?? 0) >= until) continue;
    next.set(key, { sessionId: viewer.sessionId, user: viewer.user, client: viewer.client, typing: viewer.typing, until });
  }
  return next;
}

/** What a presence event of the team's stream changes (the same map when it is not one). */
export function withEvent(held: Presence, event: LiveEvent, now: number): Presence {
  if (event.name === "presence.updated") {
    const { sessionId, user, client, typing, ttlMs } = event.payload;
    return new Map(held).set(keyOf(sessionId, user.id, client), { sessionId, user, client, typing, until: now + ttlMs });
  }
  if (event.name === "presence.left") {
    const { sessionId, userId, client } = event.payload;
    const key = keyOf(sessionId, userId, client);
    if (!held.has(key)) return held;
    const next = new Map(held);
    next.delete(key);
    return next;
  }
  return held;
}

/** The same map without the entries that ended by `now` (the same object when none did). */
export function withoutExpired(held: Presence, now: number): Presence {
  if ([...held.values()].every((entry) => entry.until > now)) return held;
  return new Map([...held].filter(([, entry]) => entry.until > now));
}

/** Someone in a session now: each member once, typing when any of their tabs types. */
export interface SessionViewer {
  id: string;
  name: string;
  typing: boolean;
}

/** Who is in `sessionId` now besides `selfId`, by name. */
export function viewersOf(held: Presence, sessionId: string, selfId: string | undefined, now: number): SessionViewer[] {
  const byUser = new Map<string, SessionViewer>();
  for (const entry of held.values()) {
    if (entry.sessionId !== sessionId || entry.until <= now || entry.user.id === selfId) continue;
    const seen = byUser.get(entry.user.id);
    byUser.set(entry.user.id, { id: entry.user.id, name: entry.user.name, typing: entry.typing || (seen?.typing ?? false) });
  }
  return [...byUser.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** One or two letters for an avatar: the initials of the first and last words of a name. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const first = words[0]?.[0] ?? "?";
  const last = words.length > 1 ? (words.at(-1)?.[0] ?? "") : "";
  return (first + last).toUpperCase();
}

/** "Ann is typing…", "Ann and Bob are typing…", "3 people are typing…"; empty when nobody is. */
export function typingLine(viewers: readonly SessionViewer[]): string {
  const names = viewers.filter((viewer) => viewer.typing).map((viewer) => viewer.name);
  if (names.length === 0) return "";
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length === 2) return `${names[0]} and ${names[1]} are typing…`;
  return `${names.length} people are typing…`;
}
