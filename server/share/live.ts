import { randomUUID } from "node:crypto";
import { type Bus, type Envelope, is } from "../bus/bus";
import type { Db } from "../db/client";
import { isParleyError } from "../errors";
import type { EventSource } from "../http";
import * as SessionEvent from "../session/events";
import type { Info } from "../session/info";
import { SyncRequested } from "../session/runner";
import { Revoked } from "./events";
import { type Options, descendants, forViewer, partForViewer, resolve } from "./share-view";

/**
 * The live events of a share link (SPEC §13): those of the shared session and of its
 * descendants — child sessions started while the stream is open included — for an
 * anonymous viewer. Session, message and todo events only: a viewer cannot answer a
 * permission, so it does not get them. When the link is revoked (`session.updated`
 * without this share) or the session deleted, the viewer gets `share.revoked` and the
 * stream ends at once.
 */

export interface LiveDeps extends Options {
  db: Db;
  bus: Bus;
}

const FORWARDED = /^(session\.|message\.|todo\.)/;

/** Session infos inside events are shown as the viewer sees them (share-view forViewer). */
function redacted(event: Envelope): Envelope {
  if (is(event, SessionEvent.Updated) || is(event, SessionEvent.Created) || is(event, SessionEvent.Deleted)) {
    return { ...event, payload: { ...event.payload, info: forViewer(event.payload.info) } };
  }
  if (is(event, SessionEvent.PartUpdated)) {
    const part = partForViewer(event.payload.part);
    return part === event.payload.part ? event : { ...event, payload: { ...event.payload, part } };
  }
  return event;
}

/** The event source of an SSE response for a share link; NOT_FOUND when unknown or revoked. */
export async function source(deps: LiveDeps, shareId: string): Promise<EventSource> {
  const root = await resolve(deps.db, shareId, deps);
  const teamId = root.teamId;
  const scope = { teamId, sessionId: root.id };
  const members = new Set(await descendants(deps.db, root.id));
  let revoke = () => {};

  return {
    subscribe(send, end) {
      let ended = false;
      revoke = () => {
        if (ended) return;
        ended = true;
        send({ id: randomUUID(), name: Revoked.name, payload: { shareId, sessionId: root.id }, scope, time: Date.now() });
        end();
      };
      return deps.bus.subscribe({ teamId }, (event) => {
        const sessionId = event.scope.sessionId;
        if (ended || sessionId === undefined) return;
        if (is(event, SessionEvent.Created) && event.payload.info.parentId && members.has(event.payload.info.parentId)) {
          members.add(event.payload.info.id);
        }
        if (!members.has(sessionId) || !FORWARDED.test(event.name)) return;
        if (sessionId === root.id) {
          const gone = is(event, SessionEvent.Deleted) || (is(event, SessionEvent.Updated) && event.payload.info.share?.id !== shareId);
          if (gone) return revoke();
        }
        send(redacted(event));
      });
    },
    // Read after subscribing, so a revoke or a child created in between is not missed.
    async initial(): Promise<Envelope[]> {
      let current: Info;
      try {
        current = await resolve(deps.db, shareId, deps);
      } catch (error) {
        if (isParleyError(error) && error.code === "NOT_FOUND") {
          revoke();
          return [];
        }
        throw error;
      }
      for (const id of await descendants(deps.db, root.id)) members.add(id);
      // Ask the runners (on whichever instance) to resend in full what is streaming now.
      for (const id of members) deps.bus.publish(SyncRequested, { sessionId: id }, { teamId, sessionId: id });
      return [{ id: `init-${current.id}-${current.time.updated}`, name: SessionEvent.Updated.name, payload: { info: current }, scope, time: Date.now() }];
    },
  };
}
