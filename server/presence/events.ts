import { z } from "zod";
import { define } from "../bus/bus";

/**
 * Presence on the team's live stream: who has a session open now, and who is typing a
 * prompt in it. Each browser tab viewing a session (a `client`) sends heartbeats
 * (server/presence/presence.ts); each heartbeat is published as `presence.updated`, which
 * the PostgreSQL bridge carries to every instance, and which holds only for `ttlMs`
 * unless a newer one follows. A tab that leaves says so (`presence.left`). Team members
 * only: share viewers never see it (no `viewer` audience) and are never shown.
 */

export const PresenceUser = z.object({ id: z.string(), name: z.string() });

export const Updated = define(
  "presence.updated",
  z.object({
    sessionId: z.string(),
    user: PresenceUser,
    /** The browser tab (one member may have a session open in several). */
    client: z.string(),
    typing: z.boolean(),
    /** How long this holds without a newer heartbeat (ms). */
    ttlMs: z.number().int().positive(),
  }),
  { audience: ["team"] },
);

export const Left = define("presence.left", z.object({ sessionId: z.string(), userId: z.string(), client: z.string() }), { audience: ["team"] });
