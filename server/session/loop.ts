import { modelsOf } from "../provider/team";
import { Spending } from "../spending";
import type { Session as SessionRow } from "../db/generated/client";
import * as Agent from "../agent/agent";
import { ParleyError } from "../errors";
import * as Id from "../id";
import { isRejection } from "../permission/permission";
import { Ruleset } from "../permission/schema";
import type { ResolvedModel, Services, SubagentCaller } from "../services";
import * as Background from "./background";
import * as Compaction from "./compaction";
import { depthOf } from "./depth";
import * as Event from "./events";
import { filterCompacted, pendingCompaction } from "./filter";
import * as LLM from "./llm";
import { type AssistantMessage, type UserMessage, type WithParts, newAssistant } from "./message";
import { toModelMessages } from "./model-messages";
import { isOverflow } from "./overflow";
import { Processor } from "./processor";
import { prune } from "./prune";
import { callerPlace, messageFromRow } from "./rows";
import { Handover, MAX_FAILED_RUNS, SHUTDOWN_REASON } from "./runner";
import * as Status from "./status";
import * as Store from "./store";
import * as Summary from "./summary";
import { pendingSubtask, runSubtask } from "./subtask";
import { systemPrompt } from "./system";
import { withToolDefaults } from "../mcp";
import { type ToolScope, rulesAndReach, toolSet, turnCalls } from "./toolset";
import { snapshotScope } from "../workspace/scope";
import { PLACE_COLUMNS, type PlaceColumns, type WorkspaceFiles, placeOf } from "../workspace/workspace";
import { Instructions, StepRules, type UrlCache, loadedRules } from "../instructions";
import { sessionAgents } from "../agent/project";
import { logger } from "../log";

const log = logger("session");

/**
 * The prompt loop: one runner per session (across instances, by the run lock) lets the
 * model answer step by step until it is done, is stopped, or fails. Each pass reads the
 * history from the last completed compaction on, ends when the last answer is newer than
 * the last user message and did not stop for tool calls, runs a waiting compaction first,
 * compacts when the last answer filled the context, and otherwise streams one step.
 */

/**
 * True when the newest user message has no answer made with it in view — and, when
 * `after` is given, was written after that id (a message newer than an abort is a new
 * request).
 *
 * "In view": the newest answer's parent (the user message it answers, the newest its
 * history held) is that message or a later one. Its being newer by id is not enough: two
 * prompts at once (say on two instances) each take their id before they are written, so a
 * runner may read the history before the second one is stored and still create its answer
 * with a larger id — that message was never shown to the model and is answered next.
 */
export async function unanswered(s: Services, sessionId: string, after?: string): Promise<boolean> {
  // Asked twice per turn: one statement for both newest messages.
  const [row] = await s.db.$queryRaw<Array<{ userId: string | null; answerId: string | null; answerParent: string | null }>>`
    SELECT (SELECT id FROM "Message" WHERE "sessionId" = ${sessionId} AND role = 'user' ORDER BY id DESC LIMIT 1) AS "userId",
           answer.id AS "answerId", answer.data->>'parentId' AS "answerParent"
    FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (SELECT id, data FROM "Message" WHERE "sessionId" = ${sessionId} AND role = 'assistant' ORDER BY id DESC LIMIT 1) AS answer ON true`;
  const userId = row?.userId ?? undefined;
  if (userId === undefined || (after !== undefined && userId <= after)) return false;
  return !row?.answerId || !answers(row.answerId, row.answerParent ?? undefined, userId);
}

/** Whether an answer (its id, its parent) was made with the user message `userId` in view. */
function answers(answerId: string, parentId: string | undefined, userId: string): boolean {
  return answerId > userId && parentId !== undefined && parentId >= userId;
}

/**
 * Make sure the session has a runner. Returns at once: the loop runs in the background.
 * When another instance runs the session, it picks the new message up itself.
 */
export async function start(s: Services, teamId: string, sessionId: string): Promise<void> {
  if (s.runners.get(sessionId)) return;
  if (!(await s.lock.tryAcquire(sessionId))) return;
  if (s.runners.get(sessionId)) {
    await s.lock.release(sessionId);
    return;
  }
  const controller = new AbortController();
  // What was asked before an abort is dropped with it; a message written after the abort
  // (while this runner is still closing) is answered by a new runner (see run). A runner
  // stopped because its instance shuts down drops nothing: what it leaves unanswered is
  // handed over to another instance.
  let abortedAt: string | undefined;
  controller.signal.addEventListener(
    "abort",
    () => {
      if (controller.signal.reason !== SHUTDOWN_REASON) abortedAt = Id.ascending("message");
    },
    { once: true },
  );
  const done = run(s, teamId, sessionId, controller.signal, () => abortedAt);
  s.runners.add({ sessionId, abort: controller, done });
}

/** A runner's life: busy, the loop until nothing is left to answer, prune, idle, release. Never rejects. */
async function run(s: Services, teamId: string, sessionId: string, signal: AbortSignal, abortedAt: () => string | undefined): Promise<void> {
  let failed = false;
  try {
    await Status.set(s, teamId, sessionId, { type: "busy" });
    do {
      await loop(s, teamId, sessionId, signal);
    } while (!signal.aborted && (await unanswered(s, sessionId)));
    s.runners.succeeded(sessionId);
    if (s.settings.compaction.prune) Background.run(sessionId, "prune", () => prune(s, teamId, sessionId));
  } catch (error) {
    failed = true;
    log.error(`the loop of ${sessionId} failed`, error);
    // The turn fails once, its error stored as the answer: the message is answered, and
    // nothing starts the loop on it again (a corrupt row would fail every run the same way).
    try {
      await failTurn(s, teamId, sessionId, error);
    } catch (storeError) {
      log.error(`could not store the failure of ${sessionId}`, storeError);
    }
  } finally {
    // Nothing here may throw: the runner is never awaited, so a rejection would be unhandled.
    try {
      await Status.set(s, teamId, sessionId, { type: "idle" });
    } catch (error) {
      log.error(`could not set ${sessionId} idle`, error);
    }
    s.runners.delete(sessionId);
    try {
      await s.lock.release(sessionId);
    } catch (error) {
      log.error(`could not release the lock of ${sessionId}`, error);
    }
  }
  // A message may have arrived between the last check and the release, or after an abort:
  // its start() found this runner still busy and left it to us. After a failure whose error
  // could not even be stored (the database refusing writes), tries again later, a bounded
  // number of times (Runners.backoff).
  try {
    if (!(await unanswered(s, sessionId, abortedAt()))) return;
    // This instance is shutting down: another one answers (server/runtime.ts, Handover).
    if (!s.runners.accepting) {
      s.bus.publish(Handover, { sessionId }, { teamId, sessionId });
      return;
    }
    const delay = failed ? s.runners.backoff(sessionId) : 0;
    if (delay === undefined) log.error(`${sessionId} failed ${MAX_FAILED_RUNS} runs in a row: left until its next prompt or restart`);
    else if (delay === 0) await start(s, teamId, sessionId);
    else setTimeout(() => void restart(s, teamId, sessionId), delay).unref();
  } catch (error) {
    log.error(`could not restart the loop of ${sessionId}`, error);
  }
}

async function restart(s: Services, teamId: string, sessionId: string): Promise<void> {
  try {
    if (!(await unanswered(s, sessionId))) return;
    if (s.runners.accepting) await start(s, teamId, sessionId);
    else s.bus.publish(Handover, { sessionId }, { teamId, sessionId });
  } catch (error) {
    log.error(`could not restart the loop of ${sessionId}`, error);
  }
}

/**
 * A run that failed with the newest user message still unanswered: an assistant message
 * with the error answers it (the message may be unreadable itself: then the session's
 * default agent and model stand in for its own).
 */
async function failTurn(s: Services, teamId: string, sessionId: string, error: unknown): Promise<void> {
  if (!(await unanswered(s, sessionId))) return;
  const [last, session] = await Promise.all([
    s.db.message.findFirst({ where: { sessionId, role: "user" }, orderBy: { id: "desc" } }),
    s.db.session.findUnique({ where: { id: sessionId }, select: { directory: true } }),
  ]);
  if (!last || !session) return;
  let user: UserMessage;
  try {
    const read = messageFromRow(last);
    if (read.role !== "user") return;
    user = read;
  } catch {
    // The stored message is what failed to read: answer it by id with the defaults.
    user = { id: last.id, sessionId, role: "user", time: { created: last.timeCreated.getTime() }, agent: s.agents.get(undefined).name, model: s.models.default() };
  }
  const reason = error instanceof Error ? error.message : String(error);
  await failBeforeStart(s, teamId, assistantFor(s.agents, s, user, session.directory), new Error(`the turn could not run: ${reason}`));
}

/** What one run of the loop carries from step to step. */
interface RunState {
  step: number;
  /**
   * Cleared when a compaction could not help (Compaction.canHelp): no more automatic
   * compactions in this run, so a context that stays full cannot loop.
   */
  compactable: boolean;
  /** Instruction URLs fetched in this run: each once per run (server/instructions). */
  urls: UrlCache;
}

async function loop(s: Services, teamId: string, sessionId: string, signal: AbortSignal): Promise<void> {
  const state: RunState = { step: 0, compactable: true, urls: new Map() };
  while (!signal.aborted) {
    if ((await pass(s, { teamId, sessionId, signal, state })) === "stop") return;
  }
}

interface Pass {
  teamId: string;
  sessionId: string;
  signal: AbortSignal;
  state: RunState;
}

/** Whether an answer is final: it ended, and not to have tools run (as toAnswer reads it). */
function answered(message: AssistantMessage): boolean {
  return message.error !== undefined || (message.finish !== undefined && message.finish !== "tool-calls" && message.finish !== "unknown");
}

/** The newest user message when it still needs an answer, else undefined. */
function toAnswer(messages: WithParts[]): UserMessage | undefined {
  const lastUser = messages.findLast((m) => m.info.role === "user");
  if (!lastUser || lastUser.info.role !== "user") return undefined;
  // A summary answering an older compaction does not end the turn: the synthetic
  // "continue" message or a prompt queued behind the compaction is answered next.
  const lastAssistant = messages.findLast((m) => m.info.role === "assistant" && !(m.info.summary && m.info.parentId !== lastUser.info.id));
  if (lastAssistant?.info.role === "assistant" && answers(lastAssistant.info.id, lastAssistant.info.parentId, lastUser.info.id)) {
    if (answered(lastAssistant.info)) return undefined;
  }
  return lastUser.info;
}

/** One pass of the loop: a waiting compaction, a needed compaction, or one model step. */
async function pass(s: Services, p: Pass): Promise<"stop" | "continue"> {
  const messages = filterCompacted(await Store.history(s.db, p.sessionId));
  const user = toAnswer(messages);
  if (!user) return "stop";
  // Every step reads the session again (its rules, model and folder may have changed), with
  // where its workspace's files are (the step's agent and rule files are read from there).
  const [row] = await s.db.$queryRaw<Array<SessionRow & PlaceColumns>>`
    SELECT s.*, ${PLACE_COLUMNS} FROM "Session" s
    LEFT JOIN "Workspace" w ON w.id = s."workspaceId" LEFT JOIN "Project" p ON p.id = w."projectId"
    WHERE s.id = ${p.sessionId}`;
  if (!row) throw ParleyError.notFound("session", p.sessionId);
  const request = pendingCompaction(messages);
  if (request) {
    const result = await Compaction.process(s, { teamId: p.teamId, sessionId: p.sessionId, history: messages, request, directory: row.directory, signal: p.signal });
    return result === "stop" ? "stop" : "continue";
  }
  // A subtask the user started runs before the model answers.
  const subtask = pendingSubtask(messages, user);
  if (subtask) {
    await runSubtask(s, { caller: await callerOf(s, row, user.agent, true), user, subtask, signal: p.signal });
    return "continue";
  }
  // The session's agents: the server's and its working tree's agent files, read again each
  // step — through one reader of its workspace with the step's rule files (instructions).
  const files = row.workspaceId ? s.workspaces.files(row.workspaceId, placeOf(row)) : undefined;
  const { agents } = await sessionAgents(s, row, files);
  const assistant = assistantFor(agents, s, user, row.directory);
  let model: ResolvedModel;
  try {
    model = (await modelsOf(s, p.teamId)).resolve(user.model);
    // Past a spending limit a running turn ends once its step is done: no further step (the prompt itself was checked).
    if (p.state.step > 0) await Spending.assertWithin(s, p.teamId, row.authorId);
  } catch (error) {
    await failBeforeStart(s, p.teamId, assistant, error);
    return "stop";
  }
  // The last finished answer filled the context: compact before going on.
  const lastFinished = messages.findLast((m) => m.info.role === "assistant" && m.info.finish !== undefined);
  if (
    lastFinished?.info.role === "assistant" &&
    !lastFinished.info.summary &&
    isOverflow({ tokens: lastFinished.info.tokens, limit: model.limit, auto: s.settings.compaction.auto }) &&
    autoCompact(s, p.state, messages, lastFinished.info.id)
  ) {
    await Compaction.create(s, compactionFor(p, user));
    return "continue";
  }
  return step(s, p, { messages, user, assistant, model, agents, files, caller: await callerOf(s, row, user.agent, Agent.allows(agents.get(user.agent), "task")) });
}

/**
 * The session as its step's tools see it, and a subagent's child is made from. Its depth
 * is read only when the pass may start a subagent (`startsSubagents`: a subtask, or an
 * agent with the task tool; a root session's is known); otherwise it counts as at the
 * cap, so nothing could start one from it.
 */
async function callerOf(s: Services, row: SessionRow, agent: string, startsSubagents: boolean): Promise<SubagentCaller> {
  const permission = Ruleset.safeParse(row.permission).data;
  const depth = startsSubagents || row.parentId === null ? await depthOf(s.db, row) : s.agents.maxDepth;
  return {
    agent,
    depth,
    ...callerPlace(row),
    ...(row.modelProviderId && row.modelId ? { model: { providerId: row.modelProviderId, modelId: row.modelId } } : {}),
    ...(permission ? { permission } : {}),
  };
}

function assistantFor(agents: Agent.Agents, s: Services, user: UserMessage, directory: string): AssistantMessage {
  return newAssistant(user, { agent: agents.get(user.agent).name, directory, now: s.clock.now() });
}

function compactionFor(p: Pass, user: UserMessage): Compaction.CreateInput {
  return { teamId: p.teamId, sessionId: p.sessionId, agent: user.agent, model: user.model, auto: true, overflow: true };
}

/** Whether to compact automatically now (see RunState.compactable). */
function autoCompact(s: Services, state: RunState, messages: WithParts[], overflowingId: string): boolean {
  if (!state.compactable || !s.settings.compaction.auto) return false;
  if (!Compaction.canHelp(messages, overflowingId)) {
    state.compactable = false;
    return false;
  }
  return true;
}

interface StepInput {
  messages: WithParts[];
  user: UserMessage;
  assistant: AssistantMessage;
  model: ResolvedModel;
  /** The session's agents (server/agent/project.ts). */
  agents: Agent.Agents;
  /** The step's reader of the session's workspace (read by the agents above already). */
  files: WorkspaceFiles | undefined;
  caller: SubagentCaller;
}

/**
 * One model step: the processor is made first (the step's tools report to it), then the
 * model is called through the one door. On the agent's last step the model gets no tools.
 */
async function step(s: Services, p: Pass, input: StepInput): Promise<"stop" | "continue"> {
  const { state, signal } = p;
  const { messages, user, assistant, model } = input;
  const agent = input.agents.get(user.agent);
  state.step++;
  const lastStep = state.step >= agent.steps;
  // What the team, the project and the repository tell the agent, read again every step
  // (a file the agent changed counts from its next step); the answer records their names.
  const instructions = await Instructions.forStep(s, { ...input.caller, signal, urlCache: state.urls, ...(input.files ? { files: input.files } : {}) });
  // The tools of the team's tool servers (server/mcp), with their instructions (recorded as sources) and their default rule (ask).
  const servers = lastStep ? undefined : await s.mcp.forStep(p.teamId, input.caller.projectId, model.limit.context, input.caller.authorId);
  const sources = [...instructions.sources, ...(servers?.sources ?? [])];
  const recorded: AssistantMessage = { ...assistant, ...(sources.length > 0 ? { instructions: sources } : {}), ...(servers?.warning ? { toolWarning: servers.warning } : {}) };
  const processor: Processor = new Processor(s, {
    teamId: p.teamId,
    assistant: recorded,
    prices: model.cost,
    abort: signal,
    isRejection,
    overflows: (tokens) => state.compactable && isOverflow({ tokens, limit: model.limit, auto: s.settings.compaction.auto }),
    project: snapshotScope(input.caller),
    // Characters / 4 (prune.ts's rule), used only when a stopped step has no reported usage.
    estimateInput: (): number => (request.system.length + JSON.stringify(request.messages).length) / 4,
  });
  const scope: ToolScope | undefined = lastStep
    ? undefined
    : {
        ...withToolDefaults(await rulesAndReach(s, { teamId: p.teamId, projectId: input.caller.projectId, agent, sessionRules: input.caller.permission }), servers?.defaults ?? []),
        extraTools: servers?.tools ?? [],
        sessionId: p.sessionId,
        teamId: p.teamId,
        projectId: input.caller.projectId,
        messageId: assistant.id,
        agent,
        agents: input.agents,
        directory: input.caller.directory,
        caller: input.caller,
        signal,
        processor,
        calls: turnCalls(messages, user.id),
        rules: new StepRules(input.caller.directory, instructions.files, loadedRules(messages)),
      };
  const request = {
    model,
    system: systemPrompt({ agent, directory: input.caller.directory, model: model.ref, lastStep, instructions: [...instructions.texts, ...(servers?.instructions ?? [])] }),
    messages: toModelMessages(messages, { images: model.images }),
    tools: scope ? toolSet(s, scope) : {},
    ...(agent.temperature !== undefined ? { temperature: agent.temperature } : {}),
    abortSignal: signal,
  };
  const result = await s.runners.streaming(p.sessionId, processor, () => processor.run(() => LLM.stream(request)));
  await summarizeStep(s, p, input, processor);
  // The step filled the context (its usage says so, or the provider refused the request
  // as too long): compact and go on. On the agent's last step the turn ends instead; the
  // next prompt compacts first.
  const tooLong = result === "stop" && processor.message.error?.name === "ContextOverflowError";
  if (((result === "compact" && !lastStep) || tooLong) && !signal.aborted && autoCompact(s, state, messages, assistant.id)) {
    await Compaction.create(s, compactionFor(p, user));
    return "continue";
  }
  // An answer that ended (not for tool calls) ends the turn: no pass to read the history
  // again just to find that out (a message that came meanwhile is seen by the runner's
  // own check before it stops).
  return result === "stop" || lastStep || answered(processor.message) ? "stop" : "continue";
}

/** The session's summary and the turn's diff after a step that took snapshots; a failure is logged, the turn goes on. */
async function summarizeStep(s: Services, p: Pass, input: StepInput, processor: Processor): Promise<void> {
  const { first, last } = processor.snapshots;
  if (!first || !last) return;
  // The workspace now differs from its branch's last commit (lists show it without reading the files).
  if (first !== last && input.caller.workspaceId) {
    await s.db.workspace.update({ where: { id: input.caller.workspaceId }, data: { dirty: true } }).catch((error: unknown) => {
      log.error(`the workspace of ${p.sessionId} could not be marked changed`, error);
    });
  }
  try {
    const project = snapshotScope(input.caller);
    await Summary.afterStep(s, { teamId: p.teamId, sessionId: p.sessionId, project, user: input.user, history: input.messages, first, last });
  } catch (error) {
    log.error(`the summary of ${p.sessionId} could not be updated`, error);
  }
}

async function failBeforeStart(s: Services, teamId: string, assistant: AssistantMessage, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const info: AssistantMessage = { ...assistant, error: { name: "UnknownError", message }, time: { created: assistant.time.created, completed: s.clock.now() } };
  await Store.writeMessage(s, teamId, info);
  s.bus.publish(Event.Error, { sessionId: info.sessionId, error: { name: "UnknownError", message } }, { teamId, sessionId: info.sessionId });
}
