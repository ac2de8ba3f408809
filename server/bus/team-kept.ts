import { z } from "zod";
import { type Bus, define } from "./bus";

/** Internal to the servers (no audience): what teams' `TeamKept` of this kind hold changed for a team, on some instance. */
export const TeamKeptChanged = define("team.kept.changed", z.object({ kind: z.string() }));

/**
 * How long a kept value is used without reading it again. A change forgets it at once on
 * every instance (`forget`: the bus carries it); this bound only limits what a forgetting
 * lost on its way (a bridge down longer than its queue) could keep.
 */
export const TEAM_KEPT_TTL_MS = 60_000;

/** Entries kept at most (of all teams); past it, all are dropped and read again. */
const MAX_KEPT = 2_000;

/**
 * Settings of a team that every step reads and that change rarely (its stored instructions,
 * its tool servers), kept in memory by key (within the team) until they change. Whoever
 * changes them calls `forget(teamId)` after the change is stored: every instance of the bus
 * (this one included) then drops what it keeps of the team — a read still under way is not
 * kept either. A failed read is not kept.
 */
export class TeamKept<T> {
  private readonly kept = new Map<string, Map<string, { until: number; value: Promise<T> }>>();
  private size = 0;

  constructor(
    private readonly bus: Bus,
    /** What is kept (the event names it, so each kind forgets only its own). */
    private readonly kind: string,
    private readonly now: () => number = () => performance.now(),
  ) {
    bus.subscribeAll((event) => {
      if (event.name !== TeamKeptChanged.name) return;
      if (TeamKeptChanged.schema.safeParse(event.payload).data?.kind === kind) this.drop(event.scope.teamId);
    });
  }

  /** The team's value of `key`: kept, or read now by `read` (and kept). */
  get(teamId: string, key: string, read: () => Promise<T>): Promise<T> {
    const team = this.kept.get(teamId);
    const hit = team?.get(key);
    if (hit && hit.until > this.now()) return hit.value;
    if (this.size >= MAX_KEPT) {
      this.kept.clear();
      this.size = 0;
    }
    const value = read();
    const entry = { until: this.now() + TEAM_KEPT_TTL_MS, value };
    const entries = this.kept.get(teamId) ?? new Map<string, { until: number; value: Promise<T> }>();
    this.kept.set(teamId, entries);
    if (!entries.has(key)) this.size++;
    entries.set(key, entry);
    value.catch(() => {
      if (entries.get(key) !== entry) return;
      entries.delete(key);
      this.size--;
    });
    return value;
  }

  /** The team's values changed (and are stored): forgotten here and on every other instance. */
  forget(teamId: string): void {
    this.drop(teamId);
    this.bus.publish(TeamKeptChanged, { kind: this.kind }, { teamId });
  }

  private drop(teamId: string): void {
    const entries = this.kept.get(teamId);
    if (!entries) return;
    this.size -= entries.size;
    this.kept.delete(teamId);
  }
}

/**
 * The TeamKept of `kind` for each bus (made at its first use): for a module that reaches the
 * bus through its callers' services rather than owning a TeamKept itself.
 */
export function perBus<T>(kind: string): (bus: Bus) => TeamKept<T> {
  const kept = new WeakMap<Bus, TeamKept<T>>();
  return (bus) => {
    let found = kept.get(bus);
    if (!found) {
      found = new TeamKept<T>(bus, kind);
      kept.set(bus, found);
    }
    return found;
  };
}
