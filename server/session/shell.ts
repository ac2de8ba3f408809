import { modelsOf } from "../provider/team";
import { z } from "zod";
import type { Session as SessionRow } from "../db/generated/client";
import type { Agent, Agents } from "../agent/agent";
import { sessionAgents } from "../agent/project";
import { ParleyError } from "../errors";
import { fn } from "../fn";
import * as Id from "../id";
import { refuseNul } from "../nul";
import { DeniedError, isRejection, verdictOf } from "../permission/permission";
import { Ruleset } from "../permission/schema";
import type { Context } from "../services";
import { bashRequest } from "../tool/bash";
import { sessionRow } from "./access";
import { intoWorkspace } from "./legacy";
import { start, unanswered } from "./loop";
import { type AssistantMessage, ModelRef, type Part, type PartOf, type UserMessage, newAssistant } from "./message";
import { AbortRequested } from "./runner";
import * as Revert from "./revert";
import { callerPlace, sessionFromRow } from "./rows";
import * as Status from "./status";
import * as Store from "./store";
import { type ToolScope, rulesAndReach, runCall, savedOutputsOf } from "./toolset";
import { TurnWriter } from "./writer";
import { snapshotScope } from "../workspace/scope";
import { complete, fail } from "../../lib/part-lifecycle";
import { logger } from "../log";

const log = logger("session");

/**
 * Commands a member runs himself in the session's sandbox: `!ls` at the start of a
 * message (session.shell), and the `` !`cmd` `` of a prompt command (server/command). Each
 * is a real `bash` call of the session — its permission asked like the agent's (the same
 * rules, the same question, "Always" and all), run in the sandbox in the session's working
 * tree, shown as a tool part — held by a user message saying the user ran it and an
 * assistant message holding the calls, so the output is in the history the model reads
 * next. The files they change are snapshotted like a model step's (a patch part), so a
 * revert to before them (/undo) restores them. A command the rules deny is refused before anything runs. The session must be idle:
 * the run lock is held while the commands run.
 */

export const MAX_SHELL_CHARS = 10_000;

export const ShellInput = z.object({
  sessionId: Id.schema("session"),
  command: refuseNul(z.string().trim().min(1, "the command is empty").max(MAX_SHELL_CHARS, `a command is limited to ${MAX_SHELL_CHARS} characters`), "a command"),
  agent: refuseNul(z.string().min(1).max(100), "an agent name").optional(),
  model: ModelRef.optional(),
});
export type ShellInput = z.input<typeof ShellInput>;

export interface ShellRun {
  /** The assistant message holding the calls. */
  message: AssistantMessage;
  /** Each command's part, in order. */
  parts: PartOf<"tool">[];
  /** Each command's output (its completed part's), in order. */
  outputs: string[];
}

/** `!command`: run it as a user-initiated bash call; its output joins the conversation for the next prompt. */
export const shell = fn(ShellInput, async (ctx: Context, input): Promise<ShellRun> => {
  const row = await intoWorkspace(ctx, await sessionRow(ctx, input.sessionId));
  const session = sessionFromRow(row);
  const { agents } = await sessionAgents(ctx, row);
  const agent = agents.choose(input.agent ?? session.agent);
  const model = input.model ?? session.model ?? (await modelsOf(ctx, ctx.actor.teamId)).default();
  const run = await runCommands(ctx, row, { commands: [input.command], agent, agents, model, note: "The user ran this command in the session's sandbox; its output follows." });
  const failed = run.parts.find((p) => p.state.status === "error");
  if (failed?.state.status === "error") throw new ParleyError("INVALID", failed.state.error, { details: { messageId: run.message.id } });
  return run;
});

/** Why nothing ran: a command the rules deny (FORBIDDEN, the rule named). */
export async function refuseDenied(ctx: Context, row: SessionRow, agent: Agent, commands: string[]): Promise<void> {
  const { layers } = await rulesAndReach(ctx, { teamId: row.teamId, projectId: row.projectId, agent, sessionRules: Ruleset.safeParse(row.permission).data });
  for (const command of commands) {
    const verdict = verdictOf(await bashRequest(command, undefined), layers);
    if (verdict.action === "deny") throw new ParleyError("FORBIDDEN", `\`${command}\` was not run, and nothing else: ${verdict.message}`);
  }
}

export interface RunCommands {
  commands: string[];
  agent: Agent;
  agents: Agents;
  model: ModelRef;
  /** The text of the user message that holds the calls. */
  note: string;
}

/**
 * Run commands one after the other as bash calls of the session (see above). Refused
 * (FORBIDDEN) before anything is written or run when the rules deny one; refused (BUSY)
 * while the session runs. A command whose question is rejected, or that fails, ends as an
 * error part; those after it are not run.
 */
export async function runCommands(ctx: Context, row: SessionRow, input: RunCommands): Promise<ShellRun> {
  const bash = ctx.tools.find((t) => t.id === "bash");
  if (!bash) throw ParleyError.invalid("this server has no bash tool");
  await refuseDenied(ctx, row, input.agent, input.commands);
  // The run lock, as a runner holds it (a lock held by someone else — on this instance too — is not ours to release).
  if (!(await ctx.lock.tryAcquire(row.id))) throw new ParleyError("BUSY", "the session is running; run the command when it is idle", { details: { sessionId: row.id } });
  const controller = new AbortController();
  const stop = ctx.bus.subscribe({ teamId: row.teamId, sessionId: row.id }, (event) => {
    if (event.name === AbortRequested.name) controller.abort("Aborted by the user");
  });
  try {
    await Status.set(ctx, row.teamId, row.id, { type: "busy" });
    return await runLocked(ctx, row, input, bash, controller.signal);
  } finally {
    stop();
    try {
      await Status.set(ctx, row.teamId, row.id, { type: "idle" });
    } finally {
      await ctx.lock.release(row.id);
    }
    await answerWaiting(ctx, row);
  }
}

/** A prompt sent while the commands ran found the session locked: it is answered now (a failure is logged: the commands' own outcome stands). */
async function answerWaiting(ctx: Context, row: SessionRow): Promise<void> {
  try {
    if (await unanswered(ctx, row.id)) await start(ctx, row.teamId, row.id);
  } catch (error) {
    log.error(`could not start the loop of ${row.id} after a member's commands`, error);
  }
}

async function runLocked(ctx: Context, row: SessionRow, input: RunCommands, bash: Context["tools"][number], signal: AbortSignal): Promise<ShellRun> {
  // A pending revert becomes final, as before a prompt.
  await Revert.cleanup(ctx, row.teamId, row.id);
  const message = await openTurn(ctx, row, input);
  const reporter = new PartReporter(ctx, row.teamId, row.id, snapshotScope(row));
  const scope = await memberScope(ctx, row, input, { messageId: message.id, signal, reporter });
  const savedOutputs = savedOutputsOf(ctx, scope);
  const parts: PartOf<"tool">[] = [];
  const outputs: string[] = [];
  let failed = false;
  for (const command of input.commands) {
    const ran = await runCommand(ctx, { row, scope, bash, reporter, savedOutputs, messageId: message.id }, command, failed);
    parts.push(ran.part);
    outputs.push(ran.output);
    failed ||= ran.part.state.status === "error";
  }
  const patch = await reporter.patch(message.id);
  if (patch) await keepPatch(ctx, row, reporter, patch);
  const finished: AssistantMessage = { ...message, finish: "stop", time: { created: message.time.created, completed: ctx.clock.now() } };
  await reporter.writer.message(finished);
  return { message: finished, parts, outputs };
}

/** The member's message (the note of what they ran) and the assistant message its calls belong to. */
async function openTurn(ctx: Context, row: SessionRow, input: RunCommands): Promise<AssistantMessage> {
  const time = ctx.clock.now();
  const user: UserMessage = { id: Id.ascending("message"), sessionId: row.id, role: "user", time: { created: time }, agent: input.agent.name, model: input.model };
  const note: Part = { id: Id.ascending("part"), sessionId: row.id, messageId: user.id, type: "text", text: input.note, synthetic: true, time: { start: time, end: time } };
  await Store.createUserMessage(ctx, row.teamId, user, [note], ctx.actor.userId);
  await Store.touchSession(ctx, row.id, time);
  const message = newAssistant(user, { agent: input.agent.name, directory: row.directory, now: ctx.clock.now() });
  await Store.writeMessage(ctx, row.teamId, message);
  return message;
}

/** The scope the member's calls run in: the session's rules and reach, as for the agent's own calls (starting no subagent). */
async function memberScope(ctx: Context, row: SessionRow, input: RunCommands, turn: { messageId: string; signal: AbortSignal; reporter: PartReporter }): Promise<ToolScope> {
  return {
    ...(await rulesAndReach(ctx, { teamId: row.teamId, projectId: row.projectId, agent: input.agent, sessionRules: Ruleset.safeParse(row.permission).data })),
    sessionId: row.id,
    teamId: row.teamId,
    projectId: row.projectId,
    messageId: turn.messageId,
    agent: input.agent,
    agents: input.agents,
    directory: row.directory,
    signal: turn.signal,
    processor: turn.reporter,
    calls: [],
    caller: {
      agent: input.agent.name,
      // Nothing a member runs starts a subagent.
      depth: ctx.agents.maxDepth,
      ...callerPlace(row),
    },
  };
}

interface CommandRun {
  row: SessionRow;
  scope: ToolScope;
  bash: Context["tools"][number];
  reporter: PartReporter;
  savedOutputs: ReturnType<typeof savedOutputsOf>;
  messageId: string;
}

/** One command as a bash call of its own part: run, or (after an earlier one failed) recorded as not run. */
async function runCommand(ctx: Context, run: CommandRun, command: string, skip: boolean): Promise<{ part: PartOf<"tool">; output: string }> {
  const { row, reporter } = run;
  const callId = `user_${Id.ascending("tool")}`;
  const started = ctx.clock.now();
  const toolInput = { command, description: "Run by the user" };
  const part: PartOf<"tool"> = {
    id: Id.ascending("part"),
    sessionId: row.id,
    messageId: run.messageId,
    type: "tool",
    callId,
    tool: "bash",
    state: { status: "running", input: toolInput, title: command, time: { start: started } },
  };
  if (skip) {
    const notRun = fail(part, "Not run: an earlier command of this message failed or was refused.", started) ?? part;
    await reporter.write(notRun);
    return { part: notRun, output: "" };
  }
  reporter.track(part);
  await reporter.write(part);
  try {
    const result = await runCall(ctx, run.scope, run.bash, toolInput, callId, run.scope.signal, run.savedOutputs);
    const done = complete(part, { output: result.output, title: result.title, metadata: { ...reporter.metadata(callId), ...result.metadata } }, ctx.clock.now()) ?? part;
    await reporter.finish(done);
    return { part: done, output: result.output };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = error instanceof DeniedError ? error.message : isRejection(error) ? `The command was not run: ${message}` : message;
    const done = fail(part, reason, ctx.clock.now()) ?? part;
    await reporter.finish(done);
    return { part: done, output: "" };
  }
}

/** The turn's patch, and the workspace marked changed (lists show it without reading the files). */
async function keepPatch(ctx: Context, row: SessionRow, reporter: PartReporter, patch: Part): Promise<void> {
  await reporter.write(patch);
  if (!row.workspaceId) return;
  await ctx.db.workspace.update({ where: { id: row.workspaceId }, data: { dirty: true } }).catch((error: unknown) => {
    log.error(`the workspace of ${row.id} could not be marked changed`, error);
  });
}

/** Where a call a member runs reports its progress (the step's processor does it for the model's calls): its own part. */
class PartReporter {
  private readonly parts = new Map<string, PartOf<"tool">>();
  private start: Promise<string | undefined> | undefined;
  /** The commands' writes (writer.ts), which take turns: a late progress report never lands after the result. */
  readonly writer: TurnWriter;

  constructor(
    private readonly ctx: Context,
    teamId: string,
    private readonly sessionId: string,
    private readonly project: { id: string; directory: string },
  ) {
    this.writer = new TurnWriter(ctx, teamId);
  }

  /** Publish a part of the commands' message and store it before resolving (`now`). */
  async write(part: Part): Promise<void> {
    await this.writer.write(part, "now");
  }

  track(part: PartOf<"tool">): void {
    this.parts.set(part.callId, part);
  }

  metadata(callId: string): Record<string, unknown> | undefined {
    const state = this.parts.get(callId)?.state;
    return state?.status === "running" ? state.metadata : undefined;
  }

  /** The files before the first command (once): what revert restores them to (the message's patch). */
  beforeTool(): Promise<void> {
    this.start ??= this.snapshot();
    return this.start.then(() => undefined);
  }

  /**
   * After the commands: the patch part of the files they changed (none when nothing did),
   * on their message, so that reverting to before it restores them as it does a model
   * step's changes. Nothing when snapshots are off, the project is over its disk quota, or
   * a snapshot fails (logged).
   */
  async patch(messageId: string): Promise<PartOf<"patch"> | undefined> {
    const start = await this.start;
    if (!start) return undefined;
    const end = await this.snapshot();
    if (!end || end === start) return undefined;
    const files = await this.ctx.snapshots.changed(this.project, start, end);
    if (!files.length) return undefined;
    return { id: Id.ascending("part"), sessionId: this.sessionId, messageId, type: "patch", hash: start, files };
  }

  private async snapshot(): Promise<string | undefined> {
    if (!this.ctx.snapshots.available) return undefined;
    try {
      if ((await this.ctx.quota.over(this.project.directory)) !== undefined) return undefined;
      return await this.ctx.snapshots.track(this.project);
    } catch (error) {
      log.error(`a snapshot around a member's command in ${this.sessionId} failed`, error);
      return undefined;
    }
  }

  updateTool(callId: string, patch: { title?: string; metadata?: Record<string, unknown>; approval?: { permission: string } | null }): Promise<void> {
    const part = this.parts.get(callId);
    if (part?.state.status !== "running") return Promise.resolve();
    const { approval, ...state } = part.state;
    const waiting = patch.approval === undefined ? approval : (patch.approval ?? undefined);
    const next: PartOf<"tool"> = {
      ...part,
      state: {
        ...state,
        ...(patch.title !== undefined ? { title: patch.title } : {}),
        ...(patch.metadata !== undefined ? { metadata: { ...state.metadata, ...patch.metadata } } : {}),
        ...(waiting ? { approval: waiting } : {}),
      },
    };
    this.parts.set(callId, next);
    return this.write(next).catch((error: unknown) => log.error(`could not report the progress of ${callId}`, error));
  }

  async finish(part: PartOf<"tool">): Promise<void> {
    this.parts.set(part.callId, part);
    await this.write(part);
  }
}
