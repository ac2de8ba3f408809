import type { Frame } from "../../../test/sse";
import type { Db } from "../../../server/db/client";
import { messageFromRow, partFromRow } from "../../../server/session/rows";
import type { Message, Part } from "../../../server/session/message";

/** What the tests read back: the stored state of a session, and what a live stream carried. */

export interface Stored {
  status: string;
  messages: { info: Message; parts: Part[] }[];
}

export async function stored(db: Db, sessionId: string): Promise<Stored> {
  const [session, messages, parts] = await Promise.all([
    db.session.findUniqueOrThrow({ where: { id: sessionId }, select: { status: true } }),
    db.message.findMany({ where: { sessionId }, orderBy: { id: "asc" } }),
    db.part.findMany({ where: { sessionId }, orderBy: { id: "asc" } }),
  ]);
  const all = parts.map(partFromRow);
  return {
    status: session.status,
    messages: messages.map((row) => ({ info: messageFromRow(row), parts: all.filter((p) => p.messageId === row.id) })),
  };
}

/** The text of a message's text parts. */
export function textOf(message: { parts: Part[] } | undefined): string {
  return (message?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
}

/** Idle, with the newest message a finished answer (an assistant message with its completion time). */
export function settled(state: Stored): boolean {
  const last = state.messages.at(-1)?.info;
  return state.status === "idle" && last?.role === "assistant" && last.time.completed !== undefined;
}

interface PartPayload {
  part: Part;
  delta?: string;
  offset?: number;
}

/** The `message.part.updated` events of a stream that carried a text delta. */
export function textDeltas(events: Frame[]): PartPayload[] {
  return events
    .filter((e) => e.name === "message.part.updated")
    .map((e) => e.payload as PartPayload)
    .filter((p) => p.delta !== undefined && p.part.type === "text");
}

/** The run statuses a stream carried, in order. */
export function statuses(events: Frame[]): string[] {
  return events.filter((e) => e.name === "session.status").map((e) => (e.payload as { status: { type: string } }).status.type);
}

/** Whether a stream saw its session go busy and then idle again. */
export function ranAndStopped(events: Frame[]): boolean {
  const seen = statuses(events);
  const busy = seen.indexOf("busy");
  return busy >= 0 && seen.indexOf("idle", busy) > busy;
}

export const range = (n: number) => Array.from({ length: n }, (_, i) => i);
