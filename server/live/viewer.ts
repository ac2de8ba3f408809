import { type Bus, type Envelope, is } from "../bus/bus";
import type { Db } from "../db/client";
import { isParleyError } from "../errors";
import type { Settings } from "../services";
import * as SessionEvent from "../session/events";
import type { Info } from "../session/info";
import { Revoked } from "../share/events";
import type { PartOf } from "../session/message";
import { type Rewritten, relativeText, rewrite, swapsOf } from "../share/paths";
import {
  type RuleSource,
  type ViewerScope,
  descendants,
  diffForViewer,
  errorForViewer,
  forViewer,
  messageForViewer,
  partForViewer,
  resolve,
  resolveScoped,
  streamedTextDone,
  textForViewer,
} from "../share/share-view";
import { type Feed, type Routed, type Start, envelope } from "./feed";
import type { LiveStreams } from "./streams";

/**
 * The live events of a share link, for an anonymous viewer: those declared for viewers
 * (session, message and todo events; never a permission, which a viewer cannot answer)
 * of the shared session and its descendants, child sessions started while the stream is
 * open included. Every event is shown as a viewer sees it (share/share-view.ts): paths
 * relative (streamed text too, delta by delta), no team, project or author id, only the
 * files the project's read rules show. When the
 * link is revoked (the shared session updated without this share) or the session
 * deleted, the viewer gets `share.revoked` and the stream ends at once.
 */

export interface ViewerServices {
  db: Db;
  bus: Bus;
  streams: LiveStreams;
  permissions: RuleSource;
  settings: Pick<Settings, "publicUrl" | "share" | "dataDir" | "projectsRoot">;
}

/** The feed of a share link; NOT_FOUND when the link is unknown or revoked. */
export async function viewerFeed(services: ViewerServices, shareId: string): Promise<Feed> {
  const { db, bus, streams } = services;
  const options = { publicUrl: services.settings.publicUrl, mode: services.settings.share, dataDir: services.settings.dataDir, projectsRoot: services.settings.projectsRoot };
  // The project's read rules as they are when the stream opens (a browser reopens it after a drop).
  const { root, scope } = await resolveScoped(services, shareId, options);
  /** The shared tree, grown as children are created; each of its sessions is followed on the bus. */
  const tree = new Set<string>();
  let follow = (_sessionId: string) => {};
  const grow = (sessionId: string) => {
    if (tree.has(sessionId)) return;
    tree.add(sessionId);
    follow(sessionId);
  };
  for (const id of await descendants(db, root.id)) grow(id);
  const texts = new StreamedTexts();
  return {
    bus,
    streams,
    filter: { teamId: scope.teamId, audience: "viewer" },
    // One subscription per session of the tree, and one to the team's new sessions (a child
    // of the tree joins it): every other event of the team costs this stream nothing.
    subscribe(deliver) {
      const stops = new Map<string, () => void>();
      follow = (sessionId) => {
        if (!stops.has(sessionId)) stops.set(sessionId, bus.subscribe({ teamId: scope.teamId, sessionId, audience: "viewer" }, deliver));
      };
      for (const id of tree) follow(id);
      const stopCreated = bus.subscribe({ teamId: scope.teamId, audience: "viewer", names: [SessionEvent.Created.name] }, (event) => {
        // A session of the tree gets its events through its own subscription.
        if (event.scope.sessionId === undefined || !tree.has(event.scope.sessionId)) deliver(event);
      });
      return () => {
        follow = () => {};
        stopCreated();
        for (const stop of stops.values()) stop();
      };
    },
    route: (event) => route(event, tree, grow, root.id, shareId, scope, texts),
    // Read after subscribing, so a revoke or a child created in between is not missed.
    async start(): Promise<Start | "gone"> {
      let info: Info;
      try {
        info = await resolve(services, shareId, options);
      } catch (error) {
        if (isParleyError(error) && error.code === "NOT_FOUND") return "gone";
        throw error;
      }
      for (const id of await descendants(db, root.id)) grow(id);
      return { info, teamId: scope.teamId, sync: tree };
    },
    farewell: () => envelope(Revoked, { shareId, sessionId: root.id }, { teamId: "", sessionId: root.id }),
  };
}

function route(
  event: Envelope,
  tree: ReadonlySet<string>,
  grow: (sessionId: string) => void,
  rootId: string,
  shareId: string,
  scope: ViewerScope,
  texts: StreamedTexts,
): Routed {
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
  // The team's id stays on the server.
  return { ...event, payload: redacted(event, scope, texts), scope: { teamId: "", sessionId } };
}

/** What an event says, as a viewer may read it (share-view): paths relative, internal ids and hidden files left out. */
function redacted(event: Envelope, scope: ViewerScope, texts: StreamedTexts): unknown {
  const sessionId = event.scope.sessionId ?? "";
  const relative = (text: string) => relativeText(text, scope, sessionId);
  if (is(event, SessionEvent.Updated) || is(event, SessionEvent.Created) || is(event, SessionEvent.Deleted)) {
    return { ...event.payload, info: forViewer(event.payload.info, scope) };
  }
  if (is(event, SessionEvent.PartUpdated)) {
    const { part, delta } = event.payload;
    if (part.type === "text" || part.type === "reasoning") return texts.shown(part, delta, scope);
    if (part.type === "tool" || part.type === "patch") texts.forget(part.id);
    return { part: partForViewer(part, scope) };
  }
  if (is(event, SessionEvent.PartRemoved)) texts.forget(event.payload.partId);
  if (is(event, SessionEvent.MessageUpdated)) return { ...event.payload, info: messageForViewer(event.payload.info, scope) };
  if (is(event, SessionEvent.Error)) return { ...event.payload, error: errorForViewer(event.payload.error, scope, sessionId) };
  if (is(event, SessionEvent.Diff)) return { ...event.payload, diff: diffForViewer(event.payload.diff, scope) };
  if (is(event, SessionEvent.StatusChanged)) {
    const { status } = event.payload;
    return status.type === "retry" ? { ...event.payload, status: { ...status, message: relative(status.message) } } : event.payload;
  }
  if (is(event, SessionEvent.TodoUpdated)) return { ...event.payload, todos: event.payload.todos.map((todo) => ({ ...todo, content: relative(todo.content) })) };
  return event.payload;
}

type TextLike = PartOf<"text"> | PartOf<"reasoning">;

/** How many streaming parts one stream remembers at most (far beyond a turn's); past it, the next delta of each is a full part. */
const MAX_STREAMING = 256;

/**
 * The text and reasoning parts a viewer's stream is sending as they stream: how far
 * each was rewritten (share/paths.ts), so a delta is rewritten from where the last one
 * ended — the cost of a delta is the delta, not the text so far — and what the viewer
 * gets only ever grows. A delta this stream cannot follow (the first it sees of a part,
 * one after a gap) is sent as the full part, which the browser takes as it is.
 */
class StreamedTexts {
  private readonly parts = new Map<string, { length: number; done: Rewritten }>();

  shown(part: TextLike, delta: string | undefined, scope: ViewerScope): { part: TextLike; delta?: string } {
    const complete = streamedTextDone(part);
    const swaps = swapsOf(scope, part.sessionId);
    const known = this.parts.get(part.id);
    const follows = delta !== undefined && known !== undefined && known.length === part.text.length - delta.length && part.text.endsWith(delta);
    const done = rewrite(part.text, swaps, complete, follows ? known.done : undefined);
    if (complete) this.parts.delete(part.id);
    else {
      if (this.parts.size >= MAX_STREAMING && !this.parts.has(part.id)) this.parts.clear();
      this.parts.set(part.id, { length: part.text.length, done });
    }
    const whole = textForViewer(part, done.out, scope);
    if (!follows || !done.out.startsWith(known.done.out)) return { part: whole };
    return { part: whole, delta: done.out.slice(known.done.out.length) };
  }

  forget(partId: string): void {
    this.parts.delete(partId);
  }
}
