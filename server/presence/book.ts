import type { z } from "zod";
import { type Bus, is } from "../bus/bus";
import type { Clock } from "../clock";
import { Left, type PresenceUser as PresenceUserSchema, Updated } from "./events";

/**
 * What every instance knows of its teams' presence: the latest heartbeat of each browser
 * tab (`client`) viewing a session, from whichever instance it reached (heartbeats are bus
 * events: the PostgreSQL bridge brings the others'), each holding until its time to live
 * runs out or the tab says it left. Kept in memory only: a new instance knows everyone
 * within one heartbeat. Read by `presence.list` for a page that opens (live changes then
 * come on the team's stream).
 */

/** How often an open session page sends a heartbeat (ms). */
export const HEARTBEAT_MS = 3_000;
/** How long a heartbeat holds (ms): a tab that closes without a word is gone within this. */
export const TTL_MS = 8_000;
/** Tabs of one member counted per session; a newer one beyond that replaces the oldest. */
export const MAX_CLIENTS = 8;
/** Expired entries of every team are swept at most this often, on the next heartbeat (ms). */
const SWEEP_MS = 10_000;

export type PresenceUser = z.infer<typeof PresenceUserSchema>;

/** One tab viewing a session, as of now: `ttlMs` is what is left of its last heartbeat. */
export interface Viewer {
  sessionId: string;
  user: PresenceUser;
  client: string;
  typing: boolean;
  ttlMs: number;
}

interface Entry {
  sessionId: string;
  user: PresenceUser;
  client: string;
  typing: boolean;
  /** Clock time its last heartbeat ends. */
  until: number;
}

const keyOf = (sessionId: string, userId: string, client: string) => `${sessionId}\0${userId}\0${client}`;

export class PresenceBook {
  /** teamId → (session, user, client) → entry. */
  private readonly teams = new Map<string, Map<string, Entry>>();
  private lastSweep: number;

  constructor(
    bus: Bus,
    private readonly clock: Clock,
  ) {
    this.lastSweep = clock.now();
    bus.subscribeAll((event) => {
      if (is(event, Updated)) this.updated(event.scope.teamId, event.payload);
      else if (is(event, Left)) this.left(event.scope.teamId, event.payload);
    });
  }

  /** The team's viewers now (expired heartbeats left out), oldest heartbeat first. */
  list(teamId: string): Viewer[] {
    const now = this.clock.now();
    const entries = [...(this.teams.get(teamId)?.values() ?? [])].filter((entry) => entry.until > now);
    return entries
      .sort((a, b) => a.until - b.until)
      .map(({ until, ...entry }) => ({ ...entry, user: { ...entry.user }, ttlMs: until - now }));
  }

  /** The viewer one tab of `userId` is in `sessionId` of `teamId`, while its heartbeat holds. */
  find(teamId: string, sessionId: string, userId: string, client: string): Viewer | undefined {
    const entry = this.teams.get(teamId)?.get(keyOf(sessionId, userId, client));
    const now = this.clock.now();
    if (!entry || entry.until <= now) return undefined;
    return { sessionId, user: { ...entry.user }, client, typing: entry.typing, ttlMs: entry.until - now };
  }

  /** Entries held now across teams (expired ones included until swept). */
  get size(): number {
    let size = 0;
    for (const team of this.teams.values()) size += team.size;
    return size;
  }

  private updated(teamId: string, beat: z.output<typeof Updated.schema>): void {
    const now = this.clock.now();
    this.sweep(now);
    let team = this.teams.get(teamId);
    if (!team) {
      team = new Map();
      this.teams.set(teamId, team);
    }
    const key = keyOf(beat.sessionId, beat.user.id, beat.client);
    team.delete(key);
    team.set(key, { sessionId: beat.sessionId, user: beat.user, client: beat.client, typing: beat.typing, until: now + beat.ttlMs });
    const tabs = [...team.entries()].filter(([, entry]) => entry.sessionId === beat.sessionId && entry.user.id === beat.user.id);
    // Map order is insertion order, and a heartbeat re-inserts its entry: the first are the stalest.
    for (const [stale] of tabs.slice(0, Math.max(0, tabs.length - MAX_CLIENTS))) team.delete(stale);
  }

  private left(teamId: string, leave: z.output<typeof Left.schema>): void {
    const team = this.teams.get(teamId);
    if (!team) return;
    team.delete(keyOf(leave.sessionId, leave.userId, leave.client));
    if (team.size === 0) this.teams.delete(teamId);
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_MS) return;
    this.lastSweep = now;
    for (const [teamId, team] of this.teams) {
      for (const [key, entry] of team) if (entry.until <= now) team.delete(key);
      if (team.size === 0) this.teams.delete(teamId);
    }
  }
}
