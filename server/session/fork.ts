import { z } from "zod";
import { closePart } from "../../lib/part-lifecycle";
import { ParleyError } from "../errors";
import { fn } from "../fn";
import * as Id from "../id";
import type { Context } from "../services";
import { sessionRow } from "./access";
import * as Event from "./events";
import { forkTitle } from "./info";
import type { Info } from "./info";
import type { Message, Part } from "./message";
import { json, sessionFromRow } from "./rows";
import * as Share from "./share";
import * as Store from "./store";

export const ForkInput = z.object({
  sessionId: Id.schema("session"),
  /** Copy only the messages before this one; all when omitted. */
  messageId: Id.schema("message").optional(),
});
export type ForkInput = z.input<typeof ForkInput>;

/**
 * fork: a new root session "<title> (fork #n)" holding copies of the messages
 * before `messageId` (all when omitted) with all their parts, each under a fresh
 * ascending id; assistant `parentId` links follow the copies. The permission ruleset is
 * copied; share, revert and summary are not. A busy session's reply being written is
 * copied closed, as a crash recovery would close it (lib/part-lifecycle.ts): its open text
 * ends, its unfinished tools become "Tool execution aborted", and the reply is complete
 * with an error saying it was cut by the fork — nothing in the fork stays "running".
 */

export const FORKED_MESSAGE = "Forked while this reply was being written: the fork holds what was written until then.";
export const fork = fn(ForkInput, async (ctx: Context, { sessionId, messageId }): Promise<Info> => {
  const source = await sessionRow(ctx, sessionId);
  const history = await Store.history(ctx.db, sessionId);
  if (messageId && !history.some((m) => m.info.id === messageId)) throw ParleyError.notFound("message", messageId);
  const kept = messageId ? history.filter((m) => m.info.id < messageId) : history;

  const newId = Id.descending("session");
  const idMap = new Map<string, string>();
  for (const m of kept) idMap.set(m.info.id, Id.ascending("message"));
  const messages: Message[] = [];
  const parts: Part[] = [];
  const now = ctx.clock.now();
  for (const m of kept) {
    const id = idMap.get(m.info.id) ?? Id.ascending("message");
    let info: Message =
      m.info.role === "assistant"
        ? { ...m.info, id, sessionId: newId, parentId: idMap.get(m.info.parentId) ?? m.info.parentId }
        : { ...m.info, id, sessionId: newId };
    if (info.role === "assistant" && info.time.completed === undefined) {
      info = { ...info, error: info.error ?? { name: "AbortedError", message: FORKED_MESSAGE }, time: { ...info.time, completed: now } };
    }
    messages.push(info);
    for (const p of m.parts) {
      const copy: Part = { ...p, id: Id.ascending("part"), sessionId: newId, messageId: id };
      parts.push(closePart(copy, now) ?? copy);
    }
  }

  const time = new Date(ctx.clock.now());
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
    await Store.insertCopies(tx, messages, parts);
    return created;
  });
  let info = sessionFromRow(row, ctx.settings.publicUrl);
  ctx.bus.publish(Event.Created, { info }, { teamId: info.teamId, sessionId: info.id });
  if (ctx.settings.share === "auto") info = await Share.share(ctx, info.id);
  else Store.publishSession(ctx, info);
  return info;
});
