import { type Bus, type Envelope, is } from "../bus/bus";
import type { Db } from "../db/client";
import { isParleyError } from "../errors";
import type { Settings } from "../services";
import * as SessionEvent from "../session/events";
import type { Info } from "../session/info";
import { Revoked } from "../share/events";
import type { PartOf } from "../session/message";
import { relativeText, rewrite, swapsOf } from "../share/paths";
import {
  type RuleSource,
  type ViewerScope,
  diffForViewer,
  errorForViewer,
  forViewer,
  messageForViewer,
  partForViewer,
  streamedTextDone,
  textForViewer,
} from "../share/redaction";
import { descendants, resolve, resolveScoped } from "../share/shared-session";
import { type Feed, type Routed, type Start, envelope } from "./feed";
import type { LiveStreams } from "./streams";

/**
 * The live events of a share link, for an anonymous viewer: those declared for viewers
 * (session, message and todo events; never a permission, which a viewer cannot answer)
 * of the shared session and its descendants, child sessions started while the stream is
 * open included. Every event is shown as a viewer sees it (share/redaction.ts): paths
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
  let payload: unknown;
  if (is(event, SessionEvent.PartUpdated) && (event.payload.part.type === "text" || event.payload.part.type === "reasoning")) {
    const shown = texts.shown(event.payload.part, event.payload.delta, event.payload.offset, scope);
    if (shown === "skip") return "skip";
    payload = shown;
  } else {
    payload = redacted(event, scope, texts);
  }
  // The team's id stays on the server.
  return { ...event, payload, scope: { teamId: "", sessionId } };
}

/** What an event says, as a viewer may read it (share/redaction.ts): paths relative, internal ids and hidden files left out (streamed text: StreamedTexts). */
function redacted(event: Envelope, scope: ViewerScope, texts: StreamedTexts): unknown {
  const sessionId = event.scope.sessionId ?? "";
  const relative = (text: string) => relativeText(text, scope, sessionId);
  if (is(event, SessionEvent.Updated) || is(event, SessionEvent.Created) || is(event, SessionEvent.Deleted)) {
    return { ...event.payload, info: forViewer(event.payload.info, scope) };
  }
  if (is(event, SessionEvent.PartUpdated)) return { part: partForViewer(event.payload.part, scope) };
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
 * The text and reasoning parts a viewer's stream is sending as they stream: how far each
 * was rewritten (share/paths.ts) — the viewer's text so far and the end of the original
 * still held back — so a delta is rewritten from where the last one stopped (its cost is
 * the delta, not the text so far) and what the viewer gets only ever grows. A delta may
 * come with the whole text (from this instance) or only with its offset (from another
 * instance). One this stream cannot follow (the first it sees of a part, one after a gap)
 * is sent as the whole part when its text is known, else left out: the full part a
 * runner sends for this stream's sync request, or at the part's end, catches up.
 */
class StreamedTexts {
  private readonly parts = new Map<string, { length: number; held: string; out: string }>();

  shown(part: TextLike, delta: string | undefined, offset: number | undefined, scope: ViewerScope): { part: TextLike; delta?: string } | "skip" {
    const complete = streamedTextDone(part);
    const swaps = swapsOf(scope, part.sessionId);
    const known = this.parts.get(part.id);
    // Where the delta starts in the original text: given by another instance, else the end of the text before it.
    const start = delta === undefined ? undefined : (offset ?? (part.text.endsWith(delta) ? part.text.length - delta.length : undefined));
    if (delta !== undefined && known !== undefined && start === known.length) {
      const text = known.held + delta;
      const done = rewrite(text, swaps, complete, { index: 0, out: known.out });
      this.remember(part.id, complete, { length: known.length + delta.length, held: text.slice(done.index), out: done.out });
      return { part: textForViewer(part, done.out, scope), delta: done.out.slice(known.out.length) };
    }
    // Only a delta of another instance, and nothing to add it to.
    if (offset !== undefined) return "skip";
    const done = rewrite(part.text, swaps, complete);
    this.remember(part.id, complete, { length: part.text.length, held: part.text.slice(done.index), out: done.out });
    return { part: textForViewer(part, done.out, scope) };
  }

  private remember(partId: string, complete: boolean, state: { length: number; held: string; out: string }): void {
    if (complete) {
      this.parts.delete(partId);
      return;
    }
    if (this.parts.size >= MAX_STREAMING && !this.parts.has(partId)) this.parts.clear();
    this.parts.set(partId, state);
  }

  forget(partId: string): void {
    this.parts.delete(partId);
  }
}
