import { modelsOf } from "../provider/team";
import { Spending } from "../spending";
import { z } from "zod";
import { type Agents, isSubagent } from "../agent/agent";
import { sessionAgents } from "../agent/project";
import type { AgentRef } from "../permission/permission";
import { ParleyError } from "../errors";
import { fn, parse } from "../fn";
import * as Id from "../id";
import { refuseNul } from "../nul";
import type { Context, Services } from "../services";
import { sessionRow } from "./access";
import * as Background from "./background";
import * as Compaction from "./compaction";
import { depthOf, tooDeep } from "./depth";
import { isDefaultTitle } from "./info";
import { intoWorkspace } from "./legacy";
import { start, unanswered } from "./loop";
import { ModelRef, type Part, type UserMessage } from "./message";
import { MentionPath, type MentionedFile, mentionedFile } from "./project-files";
import { closeStrandedTools, recover } from "./recovery";
import { messageFromRow, sessionFromRow } from "./rows";
import { AbortRequested, Runners } from "./runner";
import * as Revert from "./revert";
import { message as readMessage } from "./transcript";
import * as Store from "./store";
import * as Title from "./title";

/**
 * What a member asks of a session's agent: a prompt (a user message, answered by the loop
 * unless `noReply`), a manual compaction, an abort. The loop itself is loop.ts.
 */

export const MAX_PROMPT_CHARS = 100_000;

export const PromptPart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: refuseNul(z.string().max(MAX_PROMPT_CHARS, `a message is limited to ${MAX_PROMPT_CHARS} characters`), "a message") }),
  z.object({
    type: z.literal("file"),
    mime: refuseNul(z.string().min(1).max(200), "a file's type"),
    filename: refuseNul(z.string().max(500), "a file name").optional(),
    url: refuseNul(z.string().max(10_000_000), "a file's URL"),
  }),
  /**
   * `@src/greet.ts`: a file of the project, read when the message is written and stored as a file part with its content.
   * `strict`: a file the rules would ask about reading is refused too (a command's template named it, not the member).
   */
  z.object({ type: z.literal("mention"), path: MentionPath, strict: z.literal(true).optional() }),
]);

export const PromptInput = z.object({
  sessionId: Id.schema("session"),
  parts: z.array(PromptPart).min(1, "a message needs at least one part").max(50),
  agent: refuseNul(z.string().min(1).max(100), "an agent name").optional(),
  model: ModelRef.optional(),
  /** Store the message without asking the model. */
  noReply: z.boolean().optional(),
});
export type PromptInput = z.input<typeof PromptInput>;

/**
 * Write the user's message (its author: the actor), touch the session, name it in the
 * background when it still has its default title, and make sure a runner answers (unless
 * `noReply`).
 */
export const prompt = fn(PromptInput, (ctx: Context, data): Promise<UserMessage> => write(ctx, data));

/** A prompt the agent of the parent session writes to its subagent's (child) session: labelled as the agent's, not the member's. */
export function delegate(ctx: Context, input: PromptInput, by: NonNullable<UserMessage["delegatedBy"]>): Promise<UserMessage> {
  return write(ctx, parse(PromptInput, input), by);
}

async function write(ctx: Context, data: z.output<typeof PromptInput>, delegatedBy?: UserMessage["delegatedBy"]): Promise<UserMessage> {
  if (!data.parts.some((p) => p.type !== "text" || p.text.trim() !== "")) throw ParleyError.invalid("the message is empty");
  // A session made before workspaces moves into one of its own first (legacy.ts).
  const row = await intoWorkspace(ctx, await sessionRow(ctx, data.sessionId));
  const session = sessionFromRow(row);
  // Over a spending limit, no new prompt (one stored without a reply costs nothing).
  if (!data.noReply) await Spending.assertWithin(ctx, session.teamId, row.authorId);
  const models = await modelsOf(ctx, session.teamId);
  const wanted = data.agent ?? session.agent;
  // One of the server's agents is known at once; another may be an agent file of the working tree (made for it).
  const unknown = (name: string | undefined) => name !== undefined && !ctx.agents.find(name);
  const named = data.parts.flatMap((p) => (p.type === "text" ? [/^\s*@([A-Za-z][\w-]*)\s/.exec(p.text)?.[1]] : []));
  const agents = unknown(wanted) || named.some(unknown) ? (await sessionAgents(ctx, row)).agents : ctx.agents;
  const agent = agents.choose(wanted).name;
  // The working tree is not made here: when the session first needs files (its first tool,
  // the file list, a command's file), SPEC §15 — an answer without tools makes none.
  // Mentioned files are read before anything changes: one that cannot be read refuses the message.
  const inputs = await readMentions(ctx, row, data.parts, agents.get(agent));
  // A pending revert becomes final: the messages it hid become an earlier version (versions.ts).
  await Revert.cleanup(ctx, session.teamId, session.id, row);
  const time = ctx.clock.now();
  const user: UserMessage = {
    id: Id.ascending("message"),
    sessionId: session.id,
    role: "user",
    time: { created: time },
    agent,
    // The member's pick; else the team's model for the agent; else the session's; else the team's default.
    model: data.model ?? models.agentModel?.(agent) ?? session.model ?? models.default(),
    ...(delegatedBy ? { delegatedBy } : {}),
  };
  const parts: Part[] = inputs.map((p) => {
    const base = { id: Id.ascending("part"), sessionId: session.id, messageId: user.id };
    if (p.type === "file") {
      return { ...base, type: "file", mime: p.mime, url: p.url, ...(p.filename ? { filename: p.filename } : {}), ...("source" in p ? { source: p.source } : {}) };
    }
    const mention = subtaskOf(agents, p.text);
    if (mention) return { ...base, type: "subtask", ...mention };
    return { ...base, type: "text", text: p.text, time: { start: time, end: time } };
  });
  // An `@agent` prompt starts a subagent: refused in a session as deep as subagents may go.
  if (parts.some((p) => p.type === "subtask") && (await depthOf(ctx.db, row)) >= ctx.agents.maxDepth) throw ParleyError.invalid(tooDeep(ctx.agents.maxDepth));
  // Written by the member who sent it.
  const written = await Store.createUserMessage(ctx, session.teamId, user, parts, ctx.actor.userId);
  const touched = await Store.touchSession(ctx, session.id, time);
  if (!session.parentId && isDefaultTitle(touched.title)) {
    Background.run(session.id, "title generation", () => Title.ensure(ctx, { teamId: session.teamId, sessionId: session.id, messageId: user.id, known: { session: row, parts } }));
  }
  if (!data.noReply) await start(ctx, session.teamId, session.id);
  return written;
}

/** How long the mentions of one message may take to read, together. */
export const MENTIONS_DEADLINE_MS = 2_000;

type PromptInputPart = z.output<typeof PromptPart>;
type ReadPart = Exclude<PromptInputPart, { type: "mention" }> | ({ type: "file" } & MentionedFile);

/**
 * The message's parts with each mention replaced by the file's content. Mentions are read
 * one at a time (never several file reads of one message at once in the thread pool),
 * each through a non-blocking, checked open (project-files.ts); once the deadline has
 * passed, the mentions left are not read and the message says so instead.
 */
async function readMentions(ctx: Context, row: Parameters<typeof mentionedFile>[1], parts: PromptInputPart[], agent: AgentRef): Promise<ReadPart[]> {
  const deadline = ctx.clock.now() + MENTIONS_DEADLINE_MS;
  const out: ReadPart[] = [];
  for (const p of parts) {
    if (p.type !== "mention") {
      out.push(p);
    } else if (ctx.clock.now() > deadline) {
      out.push({ type: "text", text: `(@${p.path} was not read: reading the mentioned files took longer than ${MENTIONS_DEADLINE_MS / 1000} s.)` });
    } else {
      out.push({ type: "file", ...(await mentionedFile(ctx, row, p.path, agent, { strict: p.strict === true })) });
    }
  }
  return out;
}

/** "@explore find where greet is defined": a job for a subagent, run before the model answers (server/session/subtask.ts). */
export function subtaskOf(agents: Agents, text: string): { agent: string; prompt: string; description: string } | undefined {
  const m = /^\s*@([A-Za-z][\w-]*)\s+([\s\S]*\S)\s*$/.exec(text);
  const agent = m?.[1] ? agents.find(m[1]) : undefined;
  if (!m?.[2] || !agent || !isSubagent(agent)) return undefined;
  const words = m[2].split(/\s+/).slice(0, 6).join(" ");
  return { agent: agent.name, prompt: m[2], description: words.length > 60 ? `${words.slice(0, 59)}…` : words };
}

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
  await Revert.cleanup(ctx, row.teamId, row.id);
  const lastRow = await ctx.db.message.findFirst({ where: { sessionId: row.id, role: "user" }, orderBy: { id: "desc" } });
  const last = lastRow ? messageFromRow(lastRow) : undefined;
  if (last?.role !== "user") throw ParleyError.invalid("the session has no messages to compact");
  // The summary is written by the model of the last message, for the agent of the last message.
  const request = await Compaction.create(ctx, { teamId: row.teamId, sessionId: row.id, agent: last.agent, model: last.model, auto: false });
  await start(ctx, row.teamId, row.id);
  return request.info;
});

export const RerunInput = z.object({
  sessionId: Id.schema("session"),
  messageId: Id.schema("message"),
  /** The new text (edit and resend); the message's own text and files when omitted (regenerate, retry). */
  text: refuseNul(z.string().trim().min(1, "the message is empty").max(MAX_PROMPT_CHARS, `a message is limited to ${MAX_PROMPT_CHARS} characters`), "a message").optional(),
});
export type RerunInput = z.input<typeof RerunInput>;

/**
 * Send a user message again: its reply regenerated (or retried after a failure), or the
 * message edited. The session is reverted to before the message (its files restored,
 * it and what follows hidden), then the text is prompted again with the message's agent
 * and model; that prompt makes the revert final, the replaced turn kept as a version.
 */
export const rerun = fn(RerunInput, async (ctx: Context, input): Promise<UserMessage> => {
  const { info, parts } = await readMessage(ctx, input.sessionId, input.messageId);
  if (info.role !== "user" || parts.some((p) => p.type === "compaction")) throw ParleyError.invalid("only a message the user wrote can be sent again");
  const again: z.input<typeof PromptPart>[] =
    input.text !== undefined
      ? [{ type: "text", text: input.text }]
      : parts.flatMap((p): z.input<typeof PromptPart>[] => {
          if (p.type === "text" && !p.synthetic) return [{ type: "text", text: p.text }];
          if (p.type === "file") return [{ type: "file", mime: p.mime, url: p.url, ...(p.filename ? { filename: p.filename } : {}) }];
          return [];
        });
  await Revert.revert(ctx, { sessionId: input.sessionId, messageId: info.id });
  return prompt(ctx, { sessionId: input.sessionId, parts: again, agent: info.agent, model: info.model });
});

/** Seconds a client is told to wait before sending refused work again (Retry-After). */
export const RETRY_AFTER_S = 2;

/**
 * New work — a prompt, a compaction, a rerun — is refused while this instance shuts down
 * (server/shutdown.ts): the client sends it again in a moment, and a load balancer sends
 * it to another instance. Turns already running here go on; internal starts (a subagent's
 * child session) are not refused.
 */
export function assertAccepting(s: Pick<Services, "runners">): void {
  if (s.runners.accepting) return;
  throw new ParleyError("UNAVAILABLE", "This server is restarting and takes no new work: send it again in a moment.", {
    details: { retryAfter: RETRY_AFTER_S },
  });
}

/** Ask the runner of a session, wherever it is, to stop. */
export async function abort(ctx: Context, sessionId: string): Promise<void> {
  const row = await sessionRow(ctx, sessionId);
  ctx.runners.get(sessionId)?.abort.abort("Aborted by the user");
  ctx.bus.publish(AbortRequested, { sessionId }, { teamId: row.teamId, sessionId });
}

/**
 * Crash recovery with what follows it: sessions an instance that is gone left busy are
 * closed (server/session/recovery.ts), then a prompt that arrived while one of them was
 * being recovered — and so found it locked — is answered now. With `strandedTools` (when
 * a server starts), tools left running in idle sessions are closed too. Returns the
 * recovered ids.
 */
export async function recoverInterrupted(s: Services, options: { strandedTools?: boolean } = {}): Promise<string[]> {
  if (options.strandedTools) await closeStrandedTools(s);
  const ids = await recover(s);
  for (const id of ids) {
    if (!(await unanswered(s, id))) continue;
    const row = await s.db.session.findUnique({ where: { id }, select: { teamId: true } });
    if (row) await start(s, row.teamId, id);
  }
  return ids;
}
