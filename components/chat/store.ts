import type { Envelope } from "@/server/bus/bus";
import type { Status } from "@/server/session/events";
import type { Info } from "@/server/session/info";
import type { Message, Part, WithParts } from "@/server/session/message";

/**
 * The browser's copy of one session, fed by two sources that overlap in time: pages of
 * stored messages (tRPC, possibly a little behind) and live events (SSE, possibly
 * starting mid-stream). Every update is merged so the result never goes backwards and
 * never repeats text, whichever arrives first:
 * - a full part replaces the one held only when it is at least as far along
 *   (final text beats streaming text, longer streaming text beats shorter, a tool's
 *   state never moves back);
 * - a compact delta {offset, delta} is appended at its offset: text already held is
 *   skipped, and a delta beyond the end waits until a full part fills the gap.
 */

export interface DeltaEvent {
  part: Part;
  delta: string;
  offset: number;
}

type TextLike = Extract<Part, { type: "text" | "reasoning" }>;

const TOOL_RANK = { pending: 0, running: 1, completed: 2, error: 2 } as const;

function isText(part: Part): part is TextLike {
  return part.type === "text" || part.type === "reasoning";
}

function final(part: TextLike): boolean {
  return part.time?.end !== undefined;
}

/** True when `incoming` should replace `current` (same id). */
export function isNewer(current: Part, incoming: Part): boolean {
  if (isText(current) && isText(incoming)) {
    if (final(current)) return final(incoming);
    return final(incoming) || incoming.text.length >= current.text.length;
  }
  if (current.type === "tool" && incoming.type === "tool") {
    return TOOL_RANK[incoming.state.status] >= TOOL_RANK[current.state.status];
  }
  return true;
}

function messageNewer(current: Message, incoming: Message): boolean {
  if (current.role === "assistant" && incoming.role === "assistant") {
    if (current.time.completed !== undefined && incoming.time.completed === undefined) return false;
  }
  return true;
}

export interface SessionSnapshot {
  info: Info | undefined;
  status: Status;
  /** Oldest first. */
  messages: WithParts[];
  /** True when older messages exist on the server. */
  hasOlder: boolean;
  olderCursor: string | undefined;
  error: string | undefined;
}

export class SessionStore {
  private info: Info | undefined;
  private status: Status = { type: "idle" };
  private readonly messages = new Map<string, Message>();
  private readonly parts = new Map<string, Part[]>();
  private readonly pending = new Map<string, DeltaEvent[]>();
  private olderCursor: string | undefined;
  private hasOlder = false;
  private loadedOldest = false;
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
      messages: [...this.messages.keys()]
        .sort()
        .map((id) => ({ info: this.messages.get(id) as Message, parts: this.parts.get(id) ?? [] })),
      hasOlder: this.hasOlder,
      olderCursor: this.olderCursor,
      error: this.error,
    };
    return this.snapshot;
  };

  private changed(): void {
    this.snapshot = undefined;
    for (const listener of this.listeners) listener();
  }

  setError(error: string | undefined): void {
    this.error = error;
    this.changed();
  }

  /** Merge a page of stored messages. `cursor` is the page's cursor to older messages. */
  applyPage(page: { messages: WithParts[]; cursor: string | undefined }, older: boolean): void {
    for (const m of page.messages) {
      this.putMessage(m.info);
      for (const part of m.parts) this.putPart(part);
    }
    if (older || !this.loadedOldest) {
      this.olderCursor = page.cursor;
      this.hasOlder = page.cursor !== undefined;
      this.loadedOldest = true;
    }
    this.changed();
  }

  apply(event: Envelope): void {
    switch (event.name) {
      case "session.updated":
      case "session.created":
        this.info = (event.payload as { info: Info }).info;
        break;
      case "session.status":
        this.status = (event.payload as { status: Status }).status;
        break;
      case "message.updated":
        this.putMessage((event.payload as { info: Message }).info);
        break;
      case "message.removed": {
        const { messageId } = event.payload as { messageId: string };
        this.messages.delete(messageId);
        this.parts.delete(messageId);
        break;
      }
      case "message.part.updated": {
        const payload = event.payload as { part: Part; delta?: string; offset?: number };
        if (payload.delta !== undefined && payload.offset !== undefined) {
          this.applyDelta({ part: payload.part, delta: payload.delta, offset: payload.offset });
        } else {
          this.putPart(payload.part);
        }
        break;
      }
      case "message.part.removed": {
        const { messageId, partId } = event.payload as { messageId: string; partId: string };
        const list = this.parts.get(messageId);
        if (list) this.parts.set(messageId, list.filter((p) => p.id !== partId));
        this.pending.delete(partId);
        break;
      }
      default:
        return;
    }
    this.changed();
  }

  private putMessage(info: Message): void {
    const current = this.messages.get(info.id);
    if (current && !messageNewer(current, info)) return;
    this.messages.set(info.id, info);
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
      next = [...list, part].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
    this.parts.set(part.messageId, next);
  }

  private putPart(part: Part): void {
    const current = this.find(part);
    if (current && !isNewer(current, part)) return;
    this.store(part);
    this.drain(part.id);
  }

  private applyDelta(event: DeltaEvent): void {
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
