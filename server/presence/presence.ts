import { z } from "zod";
import { ParleyError } from "../errors";
import { fn } from "../fn";
import * as Id from "../id";
import type { Context } from "../services";
import { HEARTBEAT_MS, TTL_MS, type Viewer } from "./book";
import { Left, Updated } from "./events";

/**
 * Presence (issue 33, point 9): a member's open session page says it is there (and
 * whether its composer is being typed in) with a heartbeat every HEARTBEAT_MS; the
 * heartbeat goes on the bus to every instance (server/presence/book.ts) and to the
 * team's live streams. Only sessions of the member's own team; nothing about share
 * viewers (they have no member procedures).
 */

export { HEARTBEAT_MS, TTL_MS };
export type { Viewer };

/** A browser tab's own random id, so one member's tabs come and go on their own. */
const Client = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, "a client id is 8 to 64 letters, digits, - or _");

export const BeatInput = z.object({
  sessionId: Id.schema("session"),
  client: Client,
  /** Whether the member is typing a prompt in this tab now. */
  typing: z.boolean().default(false),
});
export type BeatInput = z.input<typeof BeatInput>;

export const LeaveInput = z.object({ sessionId: Id.schema("session"), client: Client });
export type LeaveInput = z.input<typeof LeaveInput>;

/** When to send the next heartbeat, and how long this one holds. */
export interface Beat {
  heartbeatMs: number;
  ttlMs: number;
}

/** The acting member has `sessionId` open in tab `client` (typing or not); NOT_FOUND for a session outside their team. */
export const beat = fn(BeatInput, async (ctx: Context, input): Promise<Beat> => {
  const { teamId, userId } = ctx.actor;
  // A tab already present was checked when it came; a newcomer's session and name are read.
  const user = ctx.presence.find(teamId, input.sessionId, userId, input.client)?.user ?? (await newcomer(ctx, input.sessionId));
  ctx.bus.publish(Updated, { sessionId: input.sessionId, user, client: input.client, typing: input.typing, ttlMs: TTL_MS }, { teamId, sessionId: input.sessionId });
  return { heartbeatMs: HEARTBEAT_MS, ttlMs: TTL_MS };
});

/** The acting member's tab `client` left `sessionId` (closed, or went to another page). */
export const leave = fn(LeaveInput, async (ctx: Context, input): Promise<void> => {
  const { teamId, userId } = ctx.actor;
  if (!ctx.presence.find(teamId, input.sessionId, userId, input.client)) return;
  ctx.bus.publish(Left, { sessionId: input.sessionId, userId, client: input.client }, { teamId, sessionId: input.sessionId });
});

/** Who views which session of the acting member's team now. */
export async function list(ctx: Context): Promise<Viewer[]> {
  return ctx.presence.list(ctx.actor.teamId);
}

async function newcomer(ctx: Context, sessionId: string): Promise<{ id: string; name: string }> {
  const [session, user] = await Promise.all([
    ctx.db.session.findFirst({ where: { id: sessionId, teamId: ctx.actor.teamId }, select: { id: true } }),
    ctx.db.user.findUnique({ where: { id: ctx.actor.userId }, select: { id: true, name: true } }),
  ]);
  if (!session) throw ParleyError.notFound("session", sessionId);
  if (!user) throw ParleyError.notFound("user", ctx.actor.userId);
  return user;
}
