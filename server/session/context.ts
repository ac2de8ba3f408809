import type { Bus } from "../bus/bus";
import type { Db } from "../db/client";

/** Who is acting: a user working inside one of their teams. */
export interface Actor {
  userId: string;
  teamId: string;
}

/** What every session-module call needs; passed explicitly so tests can supply their own. */
export interface Context {
  db: Db;
  bus: Bus;
  actor: Actor;
  now?: () => number;
  /** Share mode (SPEC §13); "manual" when unset. */
  share?: "auto" | "manual" | "disabled";
  /** Base of share URLs, e.g. "https://parley.example.com"; relative URLs when unset. */
  publicUrl?: string;
}

export function now(ctx: Pick<Context, "now">): number {
  return ctx.now ? ctx.now() : Date.now();
}
