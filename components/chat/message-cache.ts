import type { InfiniteData } from "@tanstack/react-query";
import type { Envelope } from "@/components/events/use-event-source";
import type { Message, MessagePage, Part, WithParts } from "./types";

/**
 * Pure updates of the cached message pages from session events. Pages are newest first
 * (pages[0] is the newest page); messages in a page and parts in a message are oldest
 * first. Ascending ids sort by creation, so plain string comparison orders them.
 *
 * Events carry the whole message or part — except streamed text, which arrives
 * compactly (server/session/wire.ts): the part with empty text, the delta, and the offset
 * where it starts. Applying any event twice changes nothing (a delta the cache already
 * has is skipped), which is what makes replaying recent events over a fresh fetch safe.
 */
export type MessagesData = InfiniteData<MessagePage, string | undefined>;

export type MessageEvent =
  | { name: "message.updated"; payload: { info: Message } }
  | { name: "message.removed"; payload: { sessionId: string; messageId: string } }
  | { name: "message.part.updated"; payload: { part: Part; delta?: string; offset?: number } }
  | { name: "message.part.removed"; payload: { sessionId: string; messageId: string; partId: string } };

const MESSAGE_EVENTS = new Set(["message.updated", "message.removed", "message.part.updated", "message.part.removed"]);

/** The server validated the payload against its schema before publishing it. */
export function asMessageEvent(event: Envelope): MessageEvent | undefined {
  return MESSAGE_EVENTS.has(event.name) ? (event as unknown as MessageEvent) : undefined;
}

export interface ApplyResult {
  data: MessagesData;
  /** The event is about a message newer than anything cached: the pages should be refetched. */
  stale: boolean;
}

/** Insert or replace `item` in a list kept sorted by id. */
function insertSorted<T>(list: T[], item: T, id: (x: T) => string): T[] {
  const key = id(item);
  const index = list.findIndex((x) => id(x) >= key);
  if (index === -1) return [...list, item];
  const at = list[index];
  if (at !== undefined && id(at) === key) return list.map((x, i) => (i === index ? item : x));
  return [...list.slice(0, index), item, ...list.slice(index)];
}

const byMessageId = (m: WithParts) => m.info.id;
const byPartId = (p: Part) => p.id;

function mapPages(data: MessagesData, fn: (page: MessagePage) => MessagePage): MessagesData {
  let changed = false;
  const pages = data.pages.map((page) => {
    const next = fn(page);
    if (next !== page) changed = true;
    return next;
  });
  return changed ? { ...data, pages } : data;
}

function findMessage(data: MessagesData, messageId: string): WithParts | undefined {
  for (const page of data.pages) {
    const found = page.messages.find((m) => m.info.id === messageId);
    if (found) return found;
  }
  return undefined;
}

function newestId(data: MessagesData): string | undefined {
  return data.pages[0]?.messages.at(-1)?.info.id;
}

/** Index of the page a message with this id belongs in, or -1 when that page is not loaded. */
function pageFor(data: MessagesData, messageId: string): number {
  for (let i = 0; i < data.pages.length; i++) {
    const oldest = data.pages[i]?.messages[0]?.info.id;
    if (oldest === undefined || messageId >= oldest) return i;
  }
  const last = data.pages.length - 1;
  return last >= 0 && data.pages[last]?.cursor === undefined ? last : -1;
}

function upsertMessage(data: MessagesData, info: Message): ApplyResult {
  if (findMessage(data, info.id)) {
    return {
      stale: false,
      data: mapPages(data, (page) =>
        page.messages.some((m) => m.info.id === info.id)
          ? { ...page, messages: page.messages.map((m) => (m.info.id === info.id ? { ...m, info } : m)) }
          : page,
      ),
    };
  }
  const target = pageFor(data, info.id);
  if (target === -1) return { data, stale: false };
  const pages = data.pages.map((page, i) => (i === target ? { ...page, messages: insertSorted(page.messages, { info, parts: [] }, byMessageId) } : page));
  return { data: { ...data, pages }, stale: false };
}

/**
 * A compact text delta on top of what is cached: appended at its offset, skipped when
 * already there, and dropped when text before the offset is missing (the server resends
 * the full part after every (re)connection, which fills such a gap).
 */
function withDelta(cached: Part | undefined, part: Part, delta: string, offset: number): Part | undefined {
  if (part.type !== "text" && part.type !== "reasoning") return part;
  const have = cached && (cached.type === "text" || cached.type === "reasoning") ? cached.text : offset === 0 ? "" : undefined;
  if (have === undefined || have.length < offset) return undefined;
  const text = have.length >= offset + delta.length ? have : have.slice(0, offset) + delta;
  return { ...part, text };
}

function upsertPart(data: MessagesData, incoming: Part, delta?: string, offset?: number): ApplyResult {
  const message = findMessage(data, incoming.messageId);
  if (!message) {
    const newest = newestId(data);
    return { data, stale: newest === undefined || incoming.messageId > newest };
  }
  const part =
    delta !== undefined && offset !== undefined
      ? withDelta(
          message.parts.find((p) => p.id === incoming.id),
          incoming,
          delta,
          offset,
        )
      : incoming;
  if (!part) return { data, stale: false };
  return {
    stale: false,
    data: mapPages(data, (page) =>
      page.messages.some((m) => m.info.id === part.messageId)
        ? {
            ...page,
            messages: page.messages.map((m) => (m.info.id === part.messageId ? { ...m, parts: insertSorted(m.parts, part, byPartId) } : m)),
          }
        : page,
    ),
  };
}

export function applyMessageEvent(data: MessagesData, event: MessageEvent): ApplyResult {
  switch (event.name) {
    case "message.updated":
      return upsertMessage(data, event.payload.info);
    case "message.part.updated":
      return upsertPart(data, event.payload.part, event.payload.delta, event.payload.offset);
    case "message.removed": {
      const { messageId } = event.payload;
      return {
        stale: false,
        data: mapPages(data, (page) =>
          page.messages.some((m) => m.info.id === messageId) ? { ...page, messages: page.messages.filter((m) => m.info.id !== messageId) } : page,
        ),
      };
    }
    case "message.part.removed": {
      const { messageId, partId } = event.payload;
      return {
        stale: false,
        data: mapPages(data, (page) =>
          page.messages.some((m) => m.info.id === messageId)
            ? {
                ...page,
                messages: page.messages.map((m) => (m.info.id === messageId ? { ...m, parts: m.parts.filter((p) => p.id !== partId) } : m)),
              }
            : page,
        ),
      };
    }
  }
}

/** Apply events to a single freshly fetched page (same rules as for the whole cache). */
export function replayOnPage(page: MessagePage, events: MessageEvent[], isNewest: boolean): MessagePage {
  let data: MessagesData = { pages: [page], pageParams: [undefined] };
  for (const event of events) {
    // Only the newest page may receive messages newer than it holds.
    if (!isNewest && event.name === "message.updated" && !findMessage(data, event.payload.info.id)) continue;
    data = applyMessageEvent(data, event).data;
  }
  return data.pages[0] ?? page;
}
