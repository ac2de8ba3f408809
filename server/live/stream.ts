import type { Bus } from "../bus/bus";
import { ParleyError } from "../errors";
import { sseResponse } from "../http";
import type { Context } from "../services";
import type { Actor } from "../actor";
import { Session } from "../session";
import type { AccessWatch } from "./access";
import { type Feed, eventSource } from "./feed";
import type { LiveStreams, StreamOwner } from "./streams";
import { type ViewerServices, viewerFeed } from "./viewer";

/**
 * The one way live events reach browsers: a Server-Sent Events response for one of the
 * three audiences an event can be declared for (server/bus/bus.ts `Audience`).
 * - member: one session of the member's team — the session as it is now, `stream.ready`,
 *   then every event of that session declared for members;
 * - viewer: a share link — the same opening for the shared session, then the viewer's
 *   events of its tree, until the link is revoked (server/live/viewer.ts);
 * - team: the member's own team — session and permission events of every session, for
 *   lists and the dashboard, live only.
 * Each user, client address and share link may hold only so many streams at once
 * (server/live/streams.ts): one more is refused with TOO_MANY. Access is checked before
 * anything is streamed: the promise rejects with the domain error (NOT_FOUND, INVALID,
 * TOO_MANY…) for the route to answer.
 */
export type Watch =
  | { audience: "member"; ctx: Context; sessionId: string }
  | { audience: "viewer"; services: ViewerServices; shareId: string }
  | { audience: "team"; ctx: TeamContext; teamId: string };

type TeamContext = { bus: Bus; actor: Actor; access: AccessWatch; streams: LiveStreams };

/** The live stream `req` asks for (its headers tell the client's address, its signal when it leaves). */
export async function liveStream(req: Request, watch: Watch): Promise<Response> {
  const streams = watch.audience === "viewer" ? watch.services.streams : watch.ctx.streams;
  const release = streams.admit(owner(req.headers, watch));
  try {
    return sseResponse(req.signal, eventSource(await feed(watch), release));
  } catch (error) {
    release();
    throw error;
  }
}

function owner(headers: Headers, watch: Watch): StreamOwner {
  return watch.audience === "viewer" ? { headers, shareId: watch.shareId } : { headers, userId: watch.ctx.actor.userId };
}

function feed(watch: Watch): Promise<Feed> {
  switch (watch.audience) {
    case "member":
      return memberFeed(watch.ctx, watch.sessionId);
    case "viewer":
      return viewerFeed(watch.services, watch.shareId);
    case "team":
      return teamFeed(watch.ctx, watch.teamId);
  }
}

async function memberFeed(ctx: Context, sessionId: string): Promise<Feed> {
  const info = await Session.get(ctx, sessionId);
  return {
    bus: ctx.bus,
    streams: ctx.streams,
    filter: { teamId: info.teamId, sessionId: info.id, audience: "member" },
    start: async () => ({ info: await Session.get(ctx, info.id), teamId: info.teamId, sync: [info.id] }),
    ...guarded(ctx),
  };
}

/** A member streams their own team only; any other team is unknown to them. */
async function teamFeed(ctx: TeamContext, teamId: string): Promise<Feed> {
  if (teamId !== ctx.actor.teamId) throw ParleyError.notFound("team", teamId);
  return { bus: ctx.bus, streams: ctx.streams, filter: { teamId, audience: "team" }, ...guarded(ctx) };
}

/** A member's stream ends with the access it was opened with: a sign-out, a removal from the team (live/access.ts). */
function guarded(ctx: { actor: Actor; access: AccessWatch }): Pick<Feed, "guard"> {
  const { userId, teamId, authSessionId } = ctx.actor;
  if (authSessionId === undefined) return {};
  return { guard: (end) => ctx.access.watch({ userId, teamId, authSessionId }, end) };
}
