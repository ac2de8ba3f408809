import { randomUUID } from "node:crypto";
import { z } from "zod";

/**
 * Typed events (SPEC §4). Each event is defined once with a name and a zod payload
 * schema; the registry lets a process that receives an event from elsewhere (the
 * PostgreSQL bridge) validate it by name. Delivery within a process is synchronous and
 * in publish order.
 */

export interface EventDef<N extends string = string, S extends z.ZodType = z.ZodType> {
  name: N;
  schema: S;
}

const registry = new Map<string, EventDef>();

export function define<N extends string, S extends z.ZodType>(name: N, schema: S): EventDef<N, S> {
  const existing = registry.get(name);
  if (existing) return existing as EventDef<N, S>;
  const def = { name, schema };
  registry.set(name, def);
  return def;
}

export function lookup(name: string): EventDef | undefined {
  return registry.get(name);
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

export interface Filter {
  teamId: string;
  sessionId?: string;
}

export type Forwarder = (event: Envelope) => void;

/** Events named "runner.*" coordinate server instances and are never sent to clients. */
export function isInternal(name: string): boolean {
  return name.startsWith("runner.");
}

export class Bus {
  readonly instanceId = randomUUID();
  private readonly handlers = new Set<{ filter: Filter; handler: Handler }>();
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
        console.error(`[bus] system subscriber of ${event.name} threw`, error);
      }
    }
    for (const { filter, handler } of this.handlers) {
      if (filter.teamId !== event.scope.teamId || isInternal(event.name)) continue;
      if (filter.sessionId !== undefined && filter.sessionId !== event.scope.sessionId) continue;
      try {
        handler(event);
      } catch (error) {
        // One broken subscriber must not stop delivery to the others; it is reported.
        console.error(`[bus] subscriber of ${event.name} threw`, error);
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

  subscribe(filter: Filter, handler: Handler): () => void {
    const entry = { filter, handler };
    this.handlers.add(entry);
    return () => {
      this.handlers.delete(entry);
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
    return this.handlers.size;
  }
}

/** Typed view of an envelope once its name is known. */
export function is<N extends string, S extends z.ZodType>(
  event: Envelope,
  def: EventDef<N, S>,
): event is Envelope & { name: N; payload: z.output<S> } {
  return event.name === def.name;
}
