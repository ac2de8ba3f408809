import { z } from "zod";
import type { Db } from "../db/client";
import { ParleyError } from "../errors";
import { describeIssues, parse } from "../fn";
import * as Id from "../id";
import type { Context } from "../services";
import { sessionRow } from "./access";
import { NO_AUTHORS, authorsOf } from "./authors";
import { Message, Part, type WithParts } from "./message";
import { messageFromRow, partFromRow } from "./rows";
import * as Store from "./store";

/**
 * Messages and parts of a session as a member reads and writes them: every call is
 * checked against the actor's team first; writes go through the write path (store.ts).
 */

export const MessagesInput = z.object({
  limit: z.number().int().min(1).max(500).default(50),
  /** Page of messages older than this message id (the previous page's cursor). */
  before: Id.schema("message").optional(),
});
export type MessagesInput = z.input<typeof MessagesInput>;

export interface MessagePage {
  /** Oldest first. */
  messages: WithParts[];
  /** Pass as `before` for the next older page; undefined when this is the oldest. */
  cursor: string | undefined;
  corrupt: { table: "Message" | "Part"; id: string; error: string }[];
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The newest page of messages (or the page before `before`), each with its parts in order (and a user message with its author). */
export async function messages(ctx: Context, sessionId: string, input: MessagesInput = {}): Promise<MessagePage> {
  const page = parse(MessagesInput, input);
  await sessionRow(ctx, sessionId);
  return messagePage(ctx.db, sessionId, page);
}

/**
 * A page of one session's messages, for a caller that has already authorized the read
 * (the session module for a member, server/share for a share link).
 */
export async function messagePage(db: Db, sessionId: string, input: z.output<typeof MessagesInput>): Promise<MessagePage> {
  const { limit, before } = input;
  const rows = await db.message.findMany({
    where: { sessionId, ...(before ? { id: { lt: before } } : {}) },
    orderBy: { id: "desc" },
    take: limit + 1,
  });
  const page = rows.slice(0, limit).reverse();
  const [partRows, authors] = page.length
    ? await Promise.all([db.part.findMany({ where: { messageId: { in: page.map((m) => m.id) } }, orderBy: { id: "asc" } }), authorsOf(db, sessionId, page)])
    : [[], NO_AUTHORS];
  const corrupt: MessagePage["corrupt"] = [];
  const byMessage = new Map<string, Part[]>();
  for (const row of partRows) {
    try {
      const part = partFromRow(row);
      const list = byMessage.get(row.messageId);
      if (list) list.push(part);
      else byMessage.set(row.messageId, [part]);
    } catch (error) {
      corrupt.push({ table: "Part", id: row.id, error: errorText(error) });
    }
  }
  const result: WithParts[] = [];
  for (const row of page) {
    try {
      result.push({ info: messageFromRow(row, authors), parts: byMessage.get(row.id) ?? [] });
    } catch (error) {
      corrupt.push({ table: "Message", id: row.id, error: errorText(error) });
    }
  }
  return { messages: result, cursor: rows.length > limit ? page[0]?.id : undefined, corrupt };
}

/** Every message of a session with its parts, oldest first (for fork and the model). */
export async function allMessages(ctx: Context, sessionId: string): Promise<WithParts[]> {
  await sessionRow(ctx, sessionId);
  return Store.history(ctx.db, sessionId);
}

export async function message(ctx: Context, sessionId: string, messageId: string): Promise<WithParts> {
  Id.assert("message", messageId);
  await sessionRow(ctx, sessionId);
  const row = await ctx.db.message.findUnique({ where: { id: messageId } });
  if (!row || row.sessionId !== sessionId) throw ParleyError.notFound("message", messageId);
  const [parts, authors] = await Promise.all([ctx.db.part.findMany({ where: { messageId }, orderBy: { id: "asc" } }), authorsOf(ctx.db, sessionId, [row])]);
  return { info: messageFromRow(row, authors), parts: parts.map(partFromRow) };
}

export async function part(ctx: Context, sessionId: string, partId: string): Promise<Part> {
  Id.assert("part", partId);
  await sessionRow(ctx, sessionId);
  const row = await ctx.db.part.findUnique({ where: { id: partId } });
  if (!row || row.sessionId !== sessionId) throw ParleyError.notFound("part", partId);
  return partFromRow(row);
}

/** A message or part to write, checked against its schema (the first issues named). */
function validate<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw ParleyError.invalid(`invalid ${what}: ${describeIssues(parsed.error.issues.slice(0, 3), "(root)")}`);
  return parsed.data;
}

export async function updateMessage(ctx: Context, input: Message): Promise<Message> {
  const info = validate(Message, input, "message");
  const session = await sessionRow(ctx, info.sessionId);
  const existing = await ctx.db.message.findUnique({ where: { id: info.id }, select: { sessionId: true, session: { select: { teamId: true } } } });
  if (existing && existing.sessionId !== info.sessionId) {
    // Another team's message is reported as not found, like its session.
    if (existing.session.teamId !== ctx.actor.teamId) throw ParleyError.notFound("message", info.id);
    throw ParleyError.invalid(`message ${info.id} belongs to another session`);
  }
  await Store.writeMessage(ctx, session.teamId, info);
  return info;
}

/** Write one part; `delta` is the text appended since the last update, published for live views. */
export async function updatePart(ctx: Context, input: Part, delta?: string): Promise<Part> {
  const value = validate(Part, input, "part");
  const session = await sessionRow(ctx, value.sessionId);
  const owner = await ctx.db.message.findUnique({ where: { id: value.messageId }, select: { sessionId: true } });
  if (!owner || owner.sessionId !== value.sessionId) throw ParleyError.notFound("message", value.messageId);
  const existing = await ctx.db.part.findUnique({
    where: { id: value.id },
    select: { messageId: true, message: { select: { session: { select: { teamId: true } } } } },
  });
  if (existing && existing.messageId !== value.messageId) {
    if (existing.message.session.teamId !== ctx.actor.teamId) throw ParleyError.notFound("part", value.id);
    throw ParleyError.invalid(`part ${value.id} belongs to another message`);
  }
  await Store.writePart(ctx, session.teamId, value, delta);
  return value;
}

export async function removeMessage(ctx: Context, sessionId: string, messageId: string): Promise<void> {
  Id.assert("message", messageId);
  const session = await sessionRow(ctx, sessionId);
  if (!(await Store.removeMessage(ctx, session.teamId, sessionId, messageId))) throw ParleyError.notFound("message", messageId);
}

export async function removePart(ctx: Context, sessionId: string, messageId: string, partId: string): Promise<void> {
  Id.assert("message", messageId);
  Id.assert("part", partId);
  const session = await sessionRow(ctx, sessionId);
  const exists = await ctx.db.part.count({ where: { id: partId, messageId, sessionId } });
  if (exists === 0) throw ParleyError.notFound("part", partId);
  await Store.removePart(ctx, session.teamId, { id: partId, messageId, sessionId });
}
