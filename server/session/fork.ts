import { z } from "zod";
import * as Id from "../id";
import { ParleyError } from "../errors";
import { sessionRow } from "./access";
import { type Context, now } from "./context";
import * as Event from "./events";
import { forkTitle } from "./info";
import type { Info } from "./info";
import type { Message, Part } from "./message";
import { json, messageData, partData, sessionFromRow } from "./rows";
import * as Share from "./share";
import { allMessages } from "./storage";

export const ForkInput = z.object({
  sessionId: Id.schema("session"),
  /** Copy only the messages before this one; all when omitted. */
  messageId: Id.schema("message").optional(),
});
export type ForkInput = z.input<typeof ForkInput>;

/**
 * fork (SPEC §2): a new root session "<title> (fork #n)" holding copies of the messages
 * before `messageId` (all when omitted) with all their parts, each under a fresh
 * ascending id; assistant `parentId` links follow the copies. The permission ruleset is
 * copied; share, revert and summary are not.
 */
export async function fork(ctx: Context, input: ForkInput): Promise<Info> {
  const parsed = ForkInput.safeParse(input);
  if (!parsed.success) throw ParleyError.invalid(parsed.error.issues.map((i) => i.message).join("; "));
  const { sessionId, messageId } = parsed.data;
  const source = await sessionRow(ctx, sessionId);
  const history = await allMessages(ctx, sessionId);
  if (messageId && !history.some((m) => m.info.id === messageId)) throw ParleyError.notFound("message", messageId);
  const kept = messageId ? history.filter((m) => m.info.id < messageId) : history;

  const newId = Id.descending("session");
  const idMap = new Map<string, string>();
  for (const m of kept) idMap.set(m.info.id, Id.ascending("message"));
  const messages: Message[] = [];
  const parts: Part[] = [];
  for (const m of kept) {
    const id = idMap.get(m.info.id) ?? Id.ascending("message");
    const info: Message =
      m.info.role === "assistant"
        ? { ...m.info, id, sessionId: newId, parentId: idMap.get(m.info.parentId) ?? m.info.parentId }
        : { ...m.info, id, sessionId: newId };
    messages.push(info);
    for (const p of m.parts) parts.push({ ...p, id: Id.ascending("part"), sessionId: newId, messageId: id });
  }

  const time = new Date(now(ctx));
  const row = await ctx.db.$transaction(async (tx) => {
    const created = await tx.session.create({
      data: {
        id: newId,
        teamId: source.teamId,
        projectId: source.projectId,
        directory: source.directory,
        title: forkTitle(source.title),
        slug: source.slug,
        version: source.version,
        authorId: ctx.actor.userId,
        agent: source.agent,
        modelProviderId: source.modelProviderId,
        modelId: source.modelId,
        permission: json(source.permission),
        timeCreated: time,
        timeUpdated: time,
      },
    });
    if (messages.length) {
      await tx.message.createMany({
        data: messages.map((m) => ({ id: m.id, sessionId: newId, role: m.role, data: messageData(m), timeCreated: new Date(m.time.created) })),
      });
    }
    if (parts.length) {
      await tx.part.createMany({
        data: parts.map((p) => ({ id: p.id, messageId: p.messageId, sessionId: newId, type: p.type, data: partData(p) })),
      });
    }
    return created;
  });
  let info = sessionFromRow(row, ctx.publicUrl);
  const scope = { teamId: info.teamId, sessionId: info.id };
  ctx.bus.publish(Event.Created, { info }, scope);
  if (ctx.share === "auto") info = await Share.share(ctx, info.id);
  else ctx.bus.publish(Event.Updated, { info }, scope);
  return info;
}
