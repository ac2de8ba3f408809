import { isNewer } from "@/lib/part-lifecycle";
import type { LiveEvent } from "@/server/live/event-types";
import type { Status } from "@/server/session/events";
import type { Info } from "@/server/session/info";
import type { Message, Part, WithParts } from "@/server/session/message";

/**
 * The browser's copy of one session, fed by two sources that overlap in time: pages of
 * stored messages (tRPC, possibly a little behind) and live events (SSE, possibly
 * starting mid-stream). Every update is merged so the result never goes backwards and
 * never repeats text, whichever arrives first:
 * - a full part replaces the one held only when it is at least as far along
 *   (`isNewer` in lib/part-lifecycle.ts: final text beats streaming text, longer
 *   streaming text beats shorter, a tool's state never moves back);
 * - a compact delta {offset, delta} is appended at its offset: text already held is
 *   skipped, and a delta beyond the end waits until a full part fills the gap;
 * - a removed message or part stays removed even when a page read before the removal
 *   arrives after it; a session info never replaces a newer one (`time.updated`).
 *
 * Paging: the newest page comes first; older pages are merged below it. Only messages
 * from the oldest loaded page's first message on are shown (the "floor"), so an event
 * about an older message that is not loaded yet never shows up detached from the rest —
 * it is kept and merged with its page when that page arrives.
 *
 * Rendering: the snapshot keeps the same object for every message (and part) that did
 * not change, so memoized rows skip re-rendering while another message streams.
 */

export interface DeltaEvent {
  part: Part;
  delta: string;
  offset: number;
}

export interface CorruptRow {
  table: "Message" | "Part";
  id: string;
  error: string;
}

export interface PageInput {
  /** Oldest first. */
  messages: WithParts[];
  /** Cursor to the next older page; undefined (or absent) when this page holds the oldest message. */
  cursor?: string;
  corrupt?: CorruptRow[];
}

type TextLike = Extract<Part, { type: "text" | "reasoning" }>;

function isText(part: Part): part is TextLike {
  return part.type === "text" || part.type === "reasoning";
}

function final(part: TextLike): boolean {
  return part.time?.end !== undefined;
}

function messageNewer(current: Message, incoming: Message): boolean {
  if (current.role === "assistant" && incoming.role === "assistant") {
    if (current.time.completed !== undefined && incoming.time.completed === undefined) return false;
  }
  return true;
}

/** Index of the first id ≥ `id` in a sorted list. */
function lowerBound(sorted: string[], id: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export interface SessionSnapshot {
  info: Info | undefined;
  /** The run status (idle until told otherwise). */
  status: Status;
  /** False while `status` is only the default. */
  statusKnown: boolean;
  /** The messages to show, oldest first. The same object while a message is unchanged. */
  messages: WithParts[];
  /** The newest page has been merged. */
  loaded: boolean;
  /** True when older messages exist on the server. */
  hasOlder: boolean;
  /** Pass as `before` to fetch the next older page. */
  olderCursor: string | undefined;
  loadingOlder: boolean;
  /** Stored rows of the loaded pages that could not be read. */
  corrupt: CorruptRow[];
  error: string | undefined;
}

export class SessionStore {
  private info: Info | undefined;
  private status: Status = { type: "idle" };
  /** Whether `status` was told (a `session.status` event or setStatus), not the default. */
  private statusKnown = false;
  private readonly messages = new Map<string, Message>();
  private readonly parts = new Map<string, Part[]>();
  /** Ids of `messages`, sorted. */
  private readonly order: string[] = [];
  /** The rendered form of each message, rebuilt only when it changes. */
  private readonly entries = new Map<string, WithParts>();
  private readonly pending = new Map<string, DeltaEvent[]>();
  private readonly removedMessages = new Set<string>();
  private readonly removedParts = new Set<string>();
  private readonly corrupt = new Map<string, CorruptRow>();
  private loaded = false;
  /** Messages older than this id are not shown (their page is not loaded); undefined = show all. */
  private floor: string | undefined;
  private loadingOlder = false;
  private error: string | undefined;
  private snapshot: SessionSnapshot | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(readonly sessionId: string) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getSnapshot = (): SessionSnapshot => {
    this.snapshot ??= {
      info: this.info,
      status: this.status,
      statusKnown: this.statusKnown,
      messages: this.visible(),
      loaded: this.loaded,
      hasOlder: this.floor !== undefined,
      olderCursor: this.floor,
      loadingOlder: this.loadingOlder,
      corrupt: [...this.corrupt.values()],
      error: this.error,
    };
    return this.snapshot;
  };

  /** Before the first page, everything held (events only); then from the floor on. */
  private visible(): WithParts[] {
    const from = this.floor === undefined ? 0 : lowerBound(this.order, this.floor);
    const out: WithParts[] = [];
    for (let i = from; i < this.order.length; i++) out.push(this.entry(this.order[i] as string));
    return out;
  }

  private entry(id: string): WithParts {
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { info: this.messages.get(id) as Message, parts: this.parts.get(id) ?? [] };
      this.entries.set(id, entry);
    }
    return entry;
  }

  private changed(): void {
    this.snapshot = undefined;
    for (const listener of this.listeners) listener();
  }

  setError(error: string | undefined): void {
    this.error = error;
    this.changed();
  }

  setLoadingOlder(loading: boolean): void {
    if (this.loadingOlder === loading) return;
    this.loadingOlder = loading;
    this.changed();
  }

  /** The run status as read with the session (later changes arrive as `session.status`). */
  setStatus(status: Status): void {
    this.status = status;
    this.statusKnown = true;
    this.changed();
  }

  /** Session info from a fetch; ignored when older than what is held. */
  setInfo(info: Info): boolean {
    if (info === this.info) return false;
    if (this.info && this.info.id === info.id && info.time.updated < this.info.time.updated) return false;
    this.info = info;
    this.changed();
    return true;
  }

  /**
   * Merge a page of stored messages: the newest page (`older` false; fetched first, and
   * again after a reconnect) or the page before the current floor (`older` true).
   */
  applyPage(page: PageInput, older: boolean): void {
    if (!older && this.loaded && page.cursor !== undefined) {
      // A newest page that does not reach back to what is held may leave a gap (many
      // messages were written while disconnected): show it alone and page down again.
      const oldest = page.messages[0]?.info.id;
      if (oldest !== undefined && !this.messages.has(oldest)) this.floor = page.cursor;
    }
    for (const m of page.messages) {
      this.putMessage(m.info);
      for (const part of m.parts) this.putPart(part);
    }
    for (const row of page.corrupt ?? []) this.corrupt.set(`${row.table}:${row.id}`, row);
    if (older || !this.loaded) {
      this.floor = page.cursor;
      this.loaded = true;
    }
    this.changed();
  }

  apply(event: LiveEvent): void {
    switch (event.name) {
      case "session.updated":
      case "session.created": {
        const { info } = event.payload;
        if (this.info && info.time.updated < this.info.time.updated) return;
        this.info = info;
        break;
      }
      case "session.status":
        this.status = event.payload.status;
        this.statusKnown = true;
        break;
      case "message.updated":
        // Events come in order: a message told after its removal is back (a version switched to).
        this.removedMessages.delete(event.payload.info.id);
        this.putMessage(event.payload.info);
        break;
      case "message.removed": {
        const { messageId } = event.payload;
        this.removedMessages.add(messageId);
        this.dropMessage(messageId);
        break;
      }
      case "message.part.updated": {
        const { payload } = event;
        if (payload.delta !== undefined && payload.offset !== undefined) {
          this.applyDelta({ part: payload.part, delta: payload.delta, offset: payload.offset });
        } else {
          this.putPart(payload.part);
        }
        break;
      }
      case "message.part.removed": {
        const { messageId, partId } = event.payload;
        this.removedParts.add(partId);
        const list = this.parts.get(messageId);
        if (list) this.setParts(messageId, list.filter((p) => p.id !== partId));
        this.pending.delete(partId);
        break;
      }
      default:
        return;
    }
    this.changed();
  }

  private putMessage(info: Message): void {
    if (this.removedMessages.has(info.id)) return;
    const current = this.messages.get(info.id);
    if (current && !messageNewer(current, info)) return;
    if (!current) this.order.splice(lowerBound(this.order, info.id), 0, info.id);
    this.messages.set(info.id, info);
    this.entries.delete(info.id);
  }

  private dropMessage(id: string): void {
    if (this.messages.delete(id)) {
      const at = lowerBound(this.order, id);
      if (this.order[at] === id) this.order.splice(at, 1);
    }
    this.parts.delete(id);
    this.entries.delete(id);
  }

  private setParts(messageId: string, list: Part[]): void {
    this.parts.set(messageId, list);
    this.entries.delete(messageId);
  }

  private find(part: Part): Part | undefined {
    return this.parts.get(part.messageId)?.find((p) => p.id === part.id);
  }

  private store(part: Part): void {
    const list = this.parts.get(part.messageId) ?? [];
    const index = list.findIndex((p) => p.id === part.id);
    let next: Part[];
    if (index >= 0) {
      next = list.slice();
      next[index] = part;
    } else {
      next = [...list, part].sort(byId);
    }
    this.setParts(part.messageId, next);
  }

  private putPart(part: Part): void {
    if (this.removedParts.has(part.id) || this.removedMessages.has(part.messageId)) return;
    const current = this.find(part);
    if (current && !isNewer(current, part)) return;
    this.store(part);
    this.drain(part.id);
  }

  private applyDelta(event: DeltaEvent): void {
    if (this.removedParts.has(event.part.id) || this.removedMessages.has(event.part.messageId)) return;
    const current = this.find(event.part);
    if (!current) {
      if (event.offset === 0 && isText(event.part)) {
        this.store({ ...event.part, text: event.delta });
        this.drain(event.part.id);
      } else {
        this.buffer(event);
      }
      return;
    }
    if (!isText(current) || final(current)) return;
    const have = current.text.length;
    const end = event.offset + event.delta.length;
    if (end <= have) return;
    if (event.offset > have) {
      this.buffer(event);
      return;
    }
    this.store({ ...current, text: current.text + event.delta.slice(have - event.offset) });
    this.drain(event.part.id);
  }

  private buffer(event: DeltaEvent): void {
    const list = this.pending.get(event.part.id) ?? [];
    list.push(event);
    this.pending.set(event.part.id, list);
  }

  /** Apply buffered deltas that now fit. */
  private drain(partId: string): void {
    const list = this.pending.get(partId);
    if (!list?.length) return;
    this.pending.delete(partId);
    for (const event of list.sort((a, b) => a.offset - b.offset)) this.applyDelta(event);
  }

  /** Whether text is waiting for a full part to fill a gap (for diagnostics and tests). */
  get waiting(): number {
    let n = 0;
    for (const list of this.pending.values()) n += list.length;
    return n;
  }
}
