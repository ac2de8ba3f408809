import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { Audience, Bus, Envelope, EventDef, Filter, Scope } from "../bus/bus";
import type { EventSource } from "../http";
import * as SessionEvent from "../session/events";
import type { Info } from "../session/info";
import { SyncRequested } from "../session/runner";
import { Ready } from "./events";
import type { LiveStreams } from "./streams";

/**
 * What one audience's live stream is made of. The bus picks the events declared for the
 * audience (`filter`); the feed may then narrow, redact or end on each one (`route`),
 * open with the current state of a session (`start`), and say goodbye when it ends the
 * stream itself (`farewell`).
 */
export interface Feed {
  bus: Bus;
  /** Where the runners' answers to this stream's sync request arrive (see `Start.sync`). */
  streams: LiveStreams;
  filter: Filter & { audience: Audience };
  /**
   * Subscribe `deliver` to the events of the filter in a finer way than one subscription
   * by `filter` (a share link follows each session of its tree: server/live/viewer.ts);
   * returns the unsubscribe.
   */
  subscribe?(deliver: (event: Envelope) => void): () => void;
  /** What becomes of one event of the filter; sent unchanged when omitted. */
  route?(event: Envelope): Routed;
  /**
   * The session the stream starts from, read once subscribed (so no change between the
   * read and the subscription is missed); "gone" when it may no longer be streamed, which
   * ends the stream at once. Without it the stream carries live events only.
   */
  start?(): Promise<Start | "gone">;
  /** Ends the stream (calls `end`) when what it may show ends, e.g. the member's access; returns the way to stop. */
  guard?(end: () => void): () => void;
  /** The last event of a stream the server ends (e.g. `share.revoked`). */
  farewell?(): Envelope;
}

/** An event to send (maybe a redacted copy), nothing ("skip"), or the end of the stream. */
export type Routed = Envelope | "skip" | "end";

export interface Start {
  /** The session as this audience sees it now. */
  info: Info;
  /** The team of the session, which the sync request is addressed to (a viewer's `info` does not show it). */
  teamId: string;
  /**
   * Sessions whose runners should send this stream (and no other) the full state of what
   * they are streaming now, from whichever instance runs them.
   */
  sync: Iterable<string>;
}

/** An envelope made for one stream (not published on the bus). */
export function envelope<N extends string, S extends z.ZodType>(def: EventDef<N, S>, payload: z.output<S>, scope: Scope): Envelope {
  return { id: randomUUID(), name: def.name, payload, scope, time: Date.now() };
}

/** How a stream that starts from a session opens: the session as it is now, then `stream.ready`. */
export function opening(info: Info): Envelope[] {
  const scope = { teamId: info.teamId, sessionId: info.id };
  return [envelope(SessionEvent.Updated, { info }, scope), envelope(Ready, { sessionId: info.id, status: info.status }, scope)];
}

/**
 * The event source of an SSE response (server/http.ts) for a feed; `closed` is called once
 * when the stream ends.
 */
export function eventSource(feed: Feed, closed?: () => void): EventSource {
  /** This stream, as the runners' answers to its sync request are addressed. */
  const connection = randomUUID();
  // Set by subscribe, which the response always calls before `initial`.
  let finish = () => {};
  const source: EventSource = {
    subscribe(send, end) {
      let ended = false;
      finish = () => {
        if (ended) return;
        ended = true;
        if (feed.farewell) send(feed.farewell());
        end();
      };
      const deliver = (event: Envelope) => {
        if (ended) return;
        const routed = feed.route ? feed.route(event) : event;
        if (routed === "end") finish();
        else if (routed !== "skip") send(routed);
      };
      const unsubscribe = feed.subscribe ? feed.subscribe(deliver) : feed.bus.subscribe(feed.filter, deliver);
      // A runner's answer: the full parts it streams, as this audience would get them live.
      const unsync = feed.start
        ? feed.streams.onSync(connection, (parts, scope) => {
            for (const part of parts) deliver(envelope(SessionEvent.PartUpdated, { part }, scope));
          })
        : undefined;
      const unguard = feed.guard?.(() => finish());
      return () => {
        unguard?.();
        unsync?.();
        unsubscribe();
      };
    },
    ...(closed ? { closed } : {}),
  };
  const { start } = feed;
  if (start) {
    source.initial = async () => {
      const state = await start();
      if (state === "gone") {
        finish();
        return [];
      }
      // Ask the runners (on whichever instance) for what is streaming now, for this stream only.
      const sessionIds = [...state.sync];
      const request = { sessionIds, connection, instance: feed.bus.instanceId };
      if (sessionIds.length) feed.bus.publish(SyncRequested, request, { teamId: state.teamId });
      return opening(state.info);
    };
  }
  return source;
}
