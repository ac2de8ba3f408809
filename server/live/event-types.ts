import type { z } from "zod";
import type { EventDef, Scope } from "../bus/bus";
import type * as PermissionEvents from "../permission/events";
import type * as PresenceEvents from "../presence/events";
import type * as SessionEvents from "../session/events";
import type * as ShareEvents from "../share/events";
import type * as StreamEvents from "./events";

/**
 * The events a live stream sends (every event defined with an audience), as one
 * discriminated union on `name`: `switch (event.name)` narrows the payload, in the browser
 * and on the server alike. Type-only — the modules below are where the events are defined
 * (`define` in server/bus/bus.ts); a test checks that every event the registry sends to an
 * audience is among them (test/live-events.test.ts).
 */

/** The event definitions a module exports. */
type DefsOf<M> = Extract<M[keyof M], EventDef>;

type LiveDef =
  | DefsOf<typeof SessionEvents>
  | DefsOf<typeof PermissionEvents>
  | DefsOf<typeof ShareEvents>
  | DefsOf<typeof StreamEvents>
  | DefsOf<typeof PresenceEvents>;

/** One event of a definition, as the stream sends it (bus.ts `Envelope`, its payload typed). */
type EventOf<D> = D extends EventDef<infer N, infer S> ? { id: string; name: N; payload: z.output<S>; scope: Scope; time: number } : never;

export type LiveEvent = EventOf<LiveDef>;
export type LiveEventName = LiveEvent["name"];

/** The live modules' definitions, for the test that keeps this list whole. */
export type { LiveDef };
