import { type Bus, type Envelope, is } from "../bus/bus";
import type { Db } from "../db/client";
import { isParleyError } from "../errors";
import type { Settings } from "../services";
import * as SessionEvent from "../session/events";
import type { Info } from "../session/info";
import { Revoked } from "../share/events";
import { type ViewerScope, descendants, errorForViewer, forViewer, messageForViewer, partForViewer, resolve, resolveScoped } from "../share/share-view";
import { type Feed, type Routed, type Start, envelope } from "./feed";
import type { LiveStreams } from "./streams";

/**
 * The live events of a share link, for an anonymous viewer: those declared for viewers
 * (session, message and todo events; never a permission, which a viewer cannot answer)
 * of the shared session and its descendants, child sessions started while the stream is
 * open included. Session infos and tool parts are shown as a viewer sees them. When the
 * link is revoked (the shared session updated without this share) or the session
 * deleted, the viewer gets `share.revoked` and the stream ends at once.
 */

export interface ViewerServices {
  db: Db;
  bus: Bus;
  streams: LiveStreams;
  settings: Pick<Settings, "publicUrl" | "share" | "dataDir">;
}

/** The feed of a share link; NOT_FOUND when the link is unknown or revoked. */
export async function viewerFeed(services: ViewerServices, shareId: string): Promise<Feed> {
  const { db, bus, streams } = services;
  const options = { publicUrl: services.settings.publicUrl, mode: services.settings.share, dataDir: services.settings.dataDir };
  const { root, scope } = await resolveScoped(db, shareId, options);
  /** The shared tree, grown as children are created; each of its sessions is followed on the bus. */
  const tree = new Set<string>();
  let follow = (_sessionId: string) => {};
  const grow = (sessionId: string) => {
    if (tree.has(sessionId)) return;
    tree.add(sessionId);
    follow(sessionId);
  };
  for (const id of await descendants(db, root.id)) grow(id);
  return {
    bus,
    streams,
    filter: { teamId: root.teamId, audience: "viewer" },
    // One subscription per session of the tree, and one to the team's new sessions (a child
    // of the tree joins it): every other event of the team costs this stream nothing.
    subscribe(deliver) {
      const stops = new Map<string, () => void>();
      follow = (sessionId) => {
        if (!stops.has(sessionId)) stops.set(sessionId, bus.subscribe({ teamId: root.teamId, sessionId, audience: "viewer" }, deliver));
      };
      for (const id of tree) follow(id);
      const stopCreated = bus.subscribe({ teamId: root.teamId, audience: "viewer", names: [SessionEvent.Created.name] }, (event) => {
        // A session of the tree gets its events through its own subscription.
        if (event.scope.sessionId === undefined || !tree.has(event.scope.sessionId)) deliver(event);
      });
      return () => {
        follow = () => {};
        stopCreated();
        for (const stop of stops.values()) stop();
      };
    },
    route: (event) => route(event, tree, grow, root.id, shareId, scope),
    // Read after subscribing, so a revoke or a child created in between is not missed.
    async start(): Promise<Start | "gone"> {
      let info: Info;
      try {
        info = await resolve(db, shareId, options);
      } catch (error) {
        if (isParleyError(error) && error.code === "NOT_FOUND") return "gone";
        throw error;
      }
      for (const id of await descendants(db, root.id)) grow(id);
      return { info, sync: tree };
    },
    farewell: () => envelope(Revoked, { shareId, sessionId: root.id }, { teamId: root.teamId, sessionId: root.id }),
  };
}

function route(event: Envelope, tree: ReadonlySet<string>, grow: (sessionId: string) => void, rootId: string, shareId: string, scope: ViewerScope): Routed {
  const sessionId = event.scope.sessionId;
  if (sessionId === undefined) return "skip";
  if (is(event, SessionEvent.Created) && event.payload.info.parentId && tree.has(event.payload.info.parentId)) {
    grow(event.payload.info.id);
  }
  if (!tree.has(sessionId)) return "skip";
  if (sessionId === rootId) {
    const gone = is(event, SessionEvent.Deleted) || (is(event, SessionEvent.Updated) && event.payload.info.share?.id !== shareId);
    if (gone) return "end";
  }
  return redacted(event, scope);
}

/** Session infos, messages, errors and tool parts inside events, as a viewer sees them (share-view). */
function redacted(event: Envelope, scope: ViewerScope): Envelope {
  if (is(event, SessionEvent.Updated) || is(event, SessionEvent.Created) || is(event, SessionEvent.Deleted)) {
    return { ...event, payload: { ...event.payload, info: forViewer(event.payload.info) } };
  }
  if (is(event, SessionEvent.PartUpdated)) {
    const part = partForViewer(event.payload.part, scope);
    return part === event.payload.part ? event : { ...event, payload: { ...event.payload, part } };
  }
  if (is(event, SessionEvent.MessageUpdated)) {
    return { ...event, payload: { ...event.payload, info: messageForViewer(event.payload.info) } };
  }
  if (is(event, SessionEvent.Error)) {
    return { ...event, payload: { ...event.payload, error: errorForViewer(event.payload.error) } };
  }
  return event;
}
