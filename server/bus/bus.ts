import { randomUUID } from "node:crypto";
import { z } from "zod";
import { logger } from "../log";

const log = logger("bus");

/**
 * Typed events. Each event is defined once with a name, a zod payload schema and the
 * audiences it is for; the registry lets a process that receives an event from elsewhere
 * (the PostgreSQL bridge) validate it by name. Delivery within a process is synchronous
 * and in publish order.
 */

/**
 * Who may receive an event on a live stream:
 * - `member`: a team member watching one session (the session's stream);
 * - `viewer`: someone holding a share link (the shared session and its descendants);
 * - `team`: a team's session list and dashboard (the team's stream).
 * An event for no audience coordinates server instances and never reaches a browser.
 */
export type Audience = "member" | "viewer" | "team";

export interface EventDef<N extends string = string, S extends z.ZodType = z.ZodType> {
  name: N;
  schema: S;
  /** The live streams this event is sent on; empty for server-internal events. */
  audience: ReadonlySet<Audience>;
}

export interface DefineOptions {
  /** The live streams this event is sent on (none: internal to the servers). */
  audience?: readonly Audience[];
}

const registry = new Map<string, EventDef>();

export function define<N extends string, S extends z.ZodType>(name: N, schema: S, options: DefineOptions = {}): EventDef<N, S> {
  const existing = registry.get(name);
  if (existing) return existing as EventDef<N, S>;
  const def = { name, schema, audience: new Set(options.audience ?? []) };
  registry.set(name, def);
  return def;
}

export function lookup(name: string): EventDef | undefined {
  return registry.get(name);
}

/** Every event defined so far (in the modules imported so far). */
export function registered(): EventDef[] {
  return [...registry.values()];
}

/**
 * Whether an event of this name is sent to `audience`, or, without one, to any audience
 * at all. A name this process never defined reaches nobody.
 */
export function reaches(name: string, audience?: Audience): boolean {
  const def = registry.get(name);
  if (!def) return false;
  return audience === undefined ? def.audience.size > 0 : def.audience.has(audience);
}

/** Where an event belongs: every event is scoped to a team, most also to a session. */
export interface Scope {
  teamId: string;
  sessionId?: string;
}

export interface Envelope {
  /** Unique per event, so a client can tell a replay from a new event. */
  id: string;
  name: string;
  payload: unknown;
  scope: Scope;
  time: number;
}

export type Handler = (event: Envelope) => void;

/** Which events a subscriber gets: those of its team (and session), sent to its audience (any audience when omitted). */
export interface Filter {
  teamId: string;
  sessionId?: string;
  audience?: Audience;
  /** Only events of these names. */
  names?: readonly string[];
}

interface Entry {
  filter: Filter;
  handler: Handler;
}

/**
 * A team's subscribers, found by what an event is for: those of its session, those of its
 * name, those of the whole team. Delivering an event costs its own subscribers, not every
 * stream open on the instance (a team's thousand share viewers each follow their sessions).
 */
interface TeamSubscribers {
  wide: Set<Entry>;
  bySession: Map<string, Set<Entry>>;
  byName: Map<string, Set<Entry>>;
}

function add<K>(map: Map<K, Set<Entry>>, key: K, entry: Entry): void {
  const set = map.get(key);
  if (set) set.add(entry);
  else map.set(key, new Set([entry]));
}

function remove<K>(map: Map<K, Set<Entry>>, key: K, entry: Entry): void {
  const set = map.get(key);
  if (!set?.delete(entry)) return;
  if (set.size === 0) map.delete(key);
}

export type Forwarder = (event: Envelope) => void;

export class Bus {
  readonly instanceId = randomUUID();
  private readonly teams = new Map<string, TeamSubscribers>();
  private subscribers = 0;
  private readonly forwarders = new Set<Forwarder>();
  private readonly system = new Set<Handler>();

  /**
   * Publish an event. The payload is validated against its schema, except when the
   * caller passes `trusted` for a payload it built from already-validated, typed values
   * on a hot path (every streamed token), where re-validating the whole part would cost
   * time proportional to its length on every delta.
   */
  publish<N extends string, S extends z.ZodType>(
    def: EventDef<N, S>,
    payload: z.input<S>,
    scope: Scope,
    options: { trusted?: boolean } = {},
  ): Envelope {
    const parsed: unknown = options.trusted ? payload : def.schema.parse(payload);
    const event: Envelope = { id: randomUUID(), name: def.name, payload: parsed, scope, time: Date.now() };
    this.deliver(event);
    for (const forward of this.forwarders) forward(event);
    return event;
  }

  /** Hand an event that came from another process to this process's subscribers. */
  deliver(event: Envelope): void {
    for (const handler of this.system) {
      try {
        handler(event);
      } catch (error) {
        log.error(`system subscriber of ${event.name} threw`, error);
      }
    }
    // Subscribers feed clients: an event for no audience (server coordination) is never theirs.
    const audience = lookup(event.name)?.audience;
    if (!audience?.size) return;
    const team = this.teams.get(event.scope.teamId);
    if (!team) return;
    const { sessionId } = event.scope;
    for (const set of [team.wide, team.byName.get(event.name), sessionId === undefined ? undefined : team.bySession.get(sessionId)]) {
      if (!set) continue;
      for (const { filter, handler } of set) {
        if (filter.audience !== undefined && !audience.has(filter.audience)) continue;
        // Indexed by session, a subscriber may still name its events; indexed by name, its session.
        if (filter.names !== undefined && !filter.names.includes(event.name)) continue;
        if (filter.sessionId !== undefined && filter.sessionId !== sessionId) continue;
        try {
          handler(event);
        } catch (error) {
          // One broken subscriber must not stop delivery to the others; it is reported.
          log.error(`subscriber of ${event.name} threw`, error);
        }
      }
    }
  }

  /** Every event of every team: for the server's own machinery, never for clients. */
  subscribeAll(handler: Handler): () => void {
    this.system.add(handler);
    return () => {
      this.system.delete(handler);
    };
  }

  /** Events of the filter's team (and session, and names) that some audience gets, or the filter's audience only. */
  subscribe(filter: Filter, handler: Handler): () => void {
    const entry: Entry = { filter, handler };
    let team = this.teams.get(filter.teamId);
    if (!team) {
      team = { wide: new Set(), bySession: new Map(), byName: new Map() };
      this.teams.set(filter.teamId, team);
    }
    const index = team;
    if (filter.sessionId !== undefined) add(index.bySession, filter.sessionId, entry);
    else if (filter.names !== undefined) for (const name of filter.names) add(index.byName, name, entry);
    else index.wide.add(entry);
    this.subscribers++;
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.subscribers--;
      if (filter.sessionId !== undefined) remove(index.bySession, filter.sessionId, entry);
      else if (filter.names !== undefined) for (const name of filter.names) remove(index.byName, name, entry);
      else index.wide.delete(entry);
      if (!index.wide.size && !index.bySession.size && !index.byName.size && this.teams.get(filter.teamId) === index) this.teams.delete(filter.teamId);
    };
  }

  /** Called for every locally published event (used by the PostgreSQL bridge). */
  onPublish(forward: Forwarder): () => void {
    this.forwarders.add(forward);
    return () => {
      this.forwarders.delete(forward);
    };
  }

  get subscriberCount(): number {
    return this.subscribers;
  }
}

/** Typed view of an envelope once its name is known. */
export function is<N extends string, S extends z.ZodType>(
  event: Envelope,
  def: EventDef<N, S>,
): event is Envelope & { name: N; payload: z.output<S> } {
  return event.name === def.name;
}
