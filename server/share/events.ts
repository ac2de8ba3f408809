import { z } from "zod";
import { define } from "../bus/bus";

/**
 * Sent to the viewers of a share link when it is revoked (or its session deleted), just
 * before their stream closes. Made per stream by server/live/viewer.ts, never published
 * on the bus; defined here so clients read it from the same registry as every event.
 */
export const Revoked = define("share.revoked", z.object({ shareId: z.string(), sessionId: z.string() }), { audience: ["viewer"] });
