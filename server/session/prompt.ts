import { z } from "zod";
import * as Agent from "../agent/agent";
import { ParleyError } from "../errors";
import { fn } from "../fn";
import * as Id from "../id";
import type { Context, Services } from "../services";
import { sessionRow } from "./access";
import * as Background from "./background";
import * as Compaction from "./compaction";
import { isDefaultTitle } from "./info";
import { start, unanswered } from "./loop";
import { ModelRef, type Part, type UserMessage } from "./message";
import { recover } from "./recovery";
import { messageFromRow, sessionFromRow } from "./rows";
import { AbortRequested, Runners } from "./runner";
import * as Store from "./store";
import * as Title from "./title";

/**
 * What a member asks of a session's agent: a prompt (a user message, answered by the loop
 * unless `noReply`), a manual compaction, an abort. The loop itself is loop.ts.
 */

export const MAX_PROMPT_CHARS = 100_000;

export const PromptPart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string().max(MAX_PROMPT_CHARS, `a message is limited to ${MAX_PROMPT_CHARS} characters`) }),
  z.object({
    type: z.literal("file"),
    mime: z.string().min(1).max(200),
    filename: z.string().max(500).optional(),
    url: z.string().max(10_000_000),
  }),
]);

export const PromptInput = z.object({
  sessionId: Id.schema("session"),
  parts: z.array(PromptPart).min(1, "a message needs at least one part").max(50),
  agent: z.string().min(1).max(100).optional(),
  model: ModelRef.optional(),
  /** Store the message without asking the model. */
  noReply: z.boolean().optional(),
});
export type PromptInput = z.input<typeof PromptInput>;

/**
 * Write the user's message, touch the session, name it in the background when it still
 * has its default title, and make sure a runner answers (unless `noReply`).
 */
export const prompt = fn(PromptInput, async (ctx: Context, data): Promise<UserMessage> => {
  if (!data.parts.some((p) => p.type !== "text" || p.text.trim() !== "")) throw ParleyError.invalid("the message is empty");
  const session = sessionFromRow(await sessionRow(ctx, data.sessionId));
  const time = ctx.clock.now();
  const user: UserMessage = {
    id: Id.ascending("message"),
    sessionId: session.id,
    role: "user",
    time: { created: time },
    agent: Agent.get(data.agent ?? session.agent).name,
    model: data.model ?? session.model ?? ctx.models.default(),
  };
  const parts: Part[] = data.parts.map((p) =>
    p.type === "text"
      ? { id: Id.ascending("part"), sessionId: session.id, messageId: user.id, type: "text", text: p.text, time: { start: time, end: time } }
      : { id: Id.ascending("part"), sessionId: session.id, messageId: user.id, type: "file", mime: p.mime, url: p.url, ...(p.filename ? { filename: p.filename } : {}) },
  );
  await Store.createUserMessage(ctx, session.teamId, user, parts);
  const touched = await Store.updateSession(ctx, session.id, { timeUpdated: new Date(time) });
  if (!session.parentId && isDefaultTitle(touched.title)) {
    Background.run(session.id, "title generation", () => Title.ensure(ctx, { teamId: session.teamId, sessionId: session.id, messageId: user.id }));
  }
  if (!data.noReply) await start(ctx, session.teamId, session.id);
  return user;
});

export const CompactInput = z.object({ sessionId: Id.schema("session") });
export type CompactInput = z.input<typeof CompactInput>;

/**
 * Manual compaction: write a compaction request and let the runner answer it with a
 * summary. Refused while the session runs (compact it when it is idle), and on a session
 * with nothing to summarise.
 */
export const compact = fn(CompactInput, async (ctx: Context, { sessionId }): Promise<UserMessage> => {
  const row = await sessionRow(ctx, sessionId);
  if (await Runners.busy(ctx.lock, ctx.runners, row.id)) {
    throw new ParleyError("BUSY", "the session is running; compact it when it is idle", { details: { sessionId: row.id } });
  }
  const lastRow = await ctx.db.message.findFirst({ where: { sessionId: row.id, role: "user" }, orderBy: { id: "desc" } });
  const last = lastRow ? messageFromRow(lastRow) : undefined;
  if (last?.role !== "user") throw ParleyError.invalid("the session has no messages to compact");
  // The summary is written by the model of the last message, for the agent of the last message.
  const request = await Compaction.create(ctx, { teamId: row.teamId, sessionId: row.id, agent: last.agent, model: last.model, auto: false });
  await start(ctx, row.teamId, row.id);
  return request.info;
});

/** Ask the runner of a session, wherever it is, to stop. */
export async function abort(ctx: Context, sessionId: string): Promise<void> {
  const row = await sessionRow(ctx, sessionId);
  ctx.runners.get(sessionId)?.abort.abort("Aborted by the user");
  ctx.bus.publish(AbortRequested, { sessionId }, { teamId: row.teamId, sessionId });
}

/**
 * Crash recovery with what follows it: sessions an instance that is gone left busy are
 * closed (server/session/recovery.ts), then a prompt that arrived while one of them was
 * being recovered — and so found it locked — is answered now. Returns the recovered ids.
 */
export async function recoverInterrupted(s: Services): Promise<string[]> {
  const ids = await recover(s);
  for (const id of ids) {
    if (!(await unanswered(s, id))) continue;
    const row = await s.db.session.findUnique({ where: { id }, select: { teamId: true } });
    if (row) await start(s, row.teamId, id);
  }
  return ids;
}
