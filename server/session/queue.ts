import { z } from "zod";
import { ParleyError } from "../errors";
import { fn } from "../fn";
import * as Id from "../id";
import type { Context } from "../services";
import { sessionRow } from "./access";
import * as Store from "./store";

export const CancelQueuedInput = z.object({ sessionId: Id.schema("session"), messageId: Id.schema("message") });
export type CancelQueuedInput = z.input<typeof CancelQueuedInput>;

/**
 * Withdraw a message queued behind the running reply (a prompt sent while the agent was
 * still answering): it is deleted with its parts, as if never sent. Only its author may,
 * and only while no answer has it in view — once a step of the model has read it
 * (an assistant message whose `parentId` is it or a later one), it is part of the
 * conversation and stays (CONFLICT). The check and the delete are one statement, so a
 * runner that has already written its answer is never undercut.
 */
export const cancelQueued = fn(CancelQueuedInput, async (ctx: Context, { sessionId, messageId }): Promise<void> => {
  const row = await sessionRow(ctx, sessionId);
  const message = await ctx.db.message.findFirst({ where: { id: messageId, sessionId: row.id }, select: { role: true, authorId: true } });
  if (!message) throw new ParleyError("NOT_FOUND", "no such message in this session", { details: { sessionId: row.id, messageId } });
  if (message.role !== "user") throw ParleyError.invalid("only a message a person wrote can be cancelled");
  if ((message.authorId ?? row.authorId) !== ctx.actor.userId) throw new ParleyError("FORBIDDEN", "only its author can cancel a queued message");
  const withdrawn = await ctx.db.$executeRaw`
    DELETE FROM "Message" m
    WHERE m.id = ${messageId} AND m."sessionId" = ${row.id}
      AND NOT EXISTS (
        SELECT 1 FROM "Message" a
        WHERE a."sessionId" = ${row.id} AND a.role = 'assistant' AND a.id > ${messageId} AND a.data->>'parentId' >= ${messageId}
      )`;
  if (withdrawn === 0) throw new ParleyError("CONFLICT", "the agent has already read this message: it can no longer be cancelled", { details: { sessionId: row.id, messageId } });
  Store.publishMessageRemoved(ctx, row.teamId, row.id, messageId);
});
