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
import { snapshotScope } from "../workspace/scope";

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

/** The files' state at the end of what a fork copies: the last snapshot a step recorded (none when no tool ran). */
function lastSnapshot(parts: Part[]): string | null {
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i];
    if (part?.type === "step-finish" && part.snapshot) return part.snapshot;
    if (part?.type === "step-start" && part.snapshot) return part.snapshot;
  }
  return null;
}

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
  const project = await ctx.db.project.findUniqueOrThrow({ where: { id: source.projectId }, select: { id: true, defaultBranch: true } });
  const row = await ctx.db.$transaction(async (tx) => {
    // A new workspace holding the source's files at the fork point: its last snapshot among the copied messages.
    const workspace = await ctx.workspaces.plan(tx, {
      teamId: source.teamId,
      project,
      slug: source.slug,
      fork: { from: snapshotScope(source).id, workspaceId: source.workspaceId, snapshot: lastSnapshot(parts) },
    });
    const created = await tx.session.create({
      data: {
        id: newId,
        teamId: source.teamId,
        projectId: source.projectId,
        directory: workspace.directory,
        workspaceId: workspace.id,
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
  // Its files are put in place now (the source's at the fork point), not at its first tool.
  if (row.workspaceId) ctx.workspaces.warm(row.workspaceId);
  let info = sessionFromRow(row, ctx.settings.publicUrl);
  ctx.bus.publish(Event.Created, { info }, { teamId: info.teamId, sessionId: info.id });
  if (ctx.settings.share === "auto") info = await Share.share(ctx, info.id);
  else Store.publishSession(ctx, info);
  return info;
});
