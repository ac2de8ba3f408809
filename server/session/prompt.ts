import { type ToolSet, jsonSchema, streamText, tool as aiTool } from "ai";
import { z } from "zod";
import * as Agent from "../agent/agent";
import { ParleyError } from "../errors";
import * as Id from "../id";
import type { Sandbox } from "../sandbox/sandbox";
import type { Boundary } from "../tool/paths";
import type { PermissionRequest, Tool, ToolContext } from "../tool/tool";
import { outputDirectory } from "../tool/truncate";
import { sessionRow } from "./access";
import type { Context } from "./context";
import type { Engine, ResolvedModel } from "./engine";
import * as Event from "./events";
import { type AssistantMessage, type Part, type UserMessage, type WithParts, ModelRef, emptyTokens } from "./message";
import { Ruleset } from "../permission/schema";
import { toModelMessages } from "./model-messages";
import { Processor } from "./processor";
import { AbortRequested, Runners } from "./runner";
import { messageData, messageFromRow, partData, partFromRow, sessionFromRow } from "./rows";
import { isDefaultTitle } from "./info";
import * as Status from "./status";
import * as Todo from "./todo";
import { systemPrompt } from "./system";
import { type Layer, type RuleStack, disabled } from "../permission/layers";
import { type Permissions, isRejection, verdictOf } from "../permission/permission";
import { type Call, isDoomLoop } from "./doom";
import * as Background from "./background";
import * as Compaction from "./compaction";
import { filterCompacted, pendingCompaction } from "./filter";
import { isOverflow } from "./overflow";
import { prune } from "./prune";
import * as Title from "./title";

/**
 * The prompt loop (SPEC §5): write the user's message, then — one runner per session —
 * let the model answer step by step until it is done, is stopped, or fails.
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

export interface Deps {
  engine: Engine;
  runners: Runners;
  permissions: Permissions;
  /** Runs every process a tool starts. */
  sandbox: Sandbox;
  /** Places no tool may reach besides other teams' projects: the data directory, the projects root… (real paths). */
  forbidden: string[];
  tools: Tool[];
  executeTool: (tool: Tool, input: unknown, ctx: ToolContext) => Promise<{ title: string; output: string; metadata: Record<string, unknown>; attachments?: { mime: string; filename?: string; url: string }[] }>;
}

function now(engine: Engine): number {
  return engine.now ? engine.now() : Date.now();
}

export async function prompt(ctx: Context, deps: Deps, input: PromptInput): Promise<UserMessage> {
  const parsed = PromptInput.safeParse(input);
  if (!parsed.success) {
    throw ParleyError.invalid(parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "));
  }
  const data = parsed.data;
  if (!data.parts.some((p) => p.type !== "text" || p.text.trim() !== "")) throw ParleyError.invalid("the message is empty");
  const row = await sessionRow(ctx, data.sessionId);
  const session = sessionFromRow(row);
  const agent = Agent.get(data.agent ?? session.agent);
  const model = data.model ?? session.model ?? deps.engine.defaultModel();
  const time = now(deps.engine);
  const user: UserMessage = {
    id: Id.ascending("message"),
    sessionId: session.id,
    role: "user",
    time: { created: time },
    agent: agent.name,
    model,
  };
  await ctx.db.message.create({
    data: { id: user.id, sessionId: user.sessionId, role: "user", data: messageData(user), timeCreated: new Date(time) },
  });
  ctx.bus.publish(Event.MessageUpdated, { info: user }, { teamId: session.teamId, sessionId: session.id });
  for (const p of data.parts) {
    const part: Part =
      p.type === "text"
        ? { id: Id.ascending("part"), sessionId: session.id, messageId: user.id, type: "text", text: p.text, time: { start: time, end: time } }
        : { id: Id.ascending("part"), sessionId: session.id, messageId: user.id, type: "file", mime: p.mime, url: p.url, ...(p.filename ? { filename: p.filename } : {}) };
    await ctx.db.part.create({ data: { id: part.id, sessionId: part.sessionId, messageId: part.messageId, type: part.type, data: partData(part) } });
    ctx.bus.publish(Event.PartUpdated, { part }, { teamId: session.teamId, sessionId: session.id });
  }
  const touched = await ctx.db.session.update({ where: { id: session.id }, data: { timeUpdated: new Date(time) }, include: { share: true } });
  ctx.bus.publish(Event.Updated, { info: sessionFromRow(touched, ctx.publicUrl) }, { teamId: session.teamId, sessionId: session.id });
  if (!session.parentId && isDefaultTitle(touched.title)) {
    const input = { teamId: session.teamId, sessionId: session.id, messageId: user.id, ...(ctx.publicUrl ? { publicUrl: ctx.publicUrl } : {}) };
    Background.run(session.id, "title generation", () => Title.ensure(deps.engine, input));
  }
  if (!data.noReply) await start(deps, session.teamId, session.id);
  return user;
}

export const CompactInput = z.object({ sessionId: Id.schema("session") });
export type CompactInput = z.input<typeof CompactInput>;

/**
 * Manual compaction (SPEC §8): write a compaction request and let the runner answer it
 * with a summary. Refused while the session runs (compact it when it is idle), and on a
 * session with nothing to summarise.
 */
export async function compact(ctx: Context, deps: Deps, input: CompactInput): Promise<UserMessage> {
  const parsed = CompactInput.safeParse(input);
  if (!parsed.success) throw ParleyError.invalid(parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "));
  const row = await sessionRow(ctx, parsed.data.sessionId);
  if (await Runners.busy(deps.engine.lock, deps.runners, row.id)) {
    throw new ParleyError("BUSY", "the session is running; compact it when it is idle", { details: { sessionId: row.id } });
  }
  const lastRow = await ctx.db.message.findFirst({ where: { sessionId: row.id, role: "user" }, orderBy: { id: "desc" } });
  const last = lastRow ? messageFromRow(lastRow) : undefined;
  if (last?.role !== "user") throw ParleyError.invalid("the session has no messages to compact");
  // The summary is written by the model of the last message, for the agent of the last message.
  const request = await Compaction.create(deps.engine, { teamId: row.teamId, sessionId: row.id, agent: last.agent, model: last.model, auto: false });
  await start(deps, row.teamId, row.id);
  return request.info;
}

/** Ask the runner of a session, wherever it is, to stop. */
export async function abort(ctx: Context, deps: Deps, sessionId: string): Promise<void> {
  const row = await sessionRow(ctx, sessionId);
  deps.runners.get(sessionId)?.abort.abort("Aborted by the user");
  ctx.bus.publish(AbortRequested, { sessionId }, { teamId: row.teamId, sessionId });
}

async function history(deps: Deps, sessionId: string): Promise<WithParts[]> {
  const db = deps.engine.db;
  const [messages, parts] = await Promise.all([
    db.message.findMany({ where: { sessionId }, orderBy: { id: "asc" } }),
    db.part.findMany({ where: { sessionId }, orderBy: { id: "asc" } }),
  ]);
  const byMessage = new Map<string, Part[]>();
  for (const row of parts) {
    const list = byMessage.get(row.messageId) ?? [];
    list.push(partFromRow(row));
    byMessage.set(row.messageId, list);
  }
  return messages.map((row) => ({ info: messageFromRow(row), parts: byMessage.get(row.id) ?? [] }));
}

/**
 * True when the newest user message has no assistant answer after it — and, when `after`
 * is given, was written after that id (a message newer than an abort is a new request).
 */
export async function unanswered(deps: Deps, sessionId: string, after?: string): Promise<boolean> {
  const last = await deps.engine.db.message.findFirst({ where: { sessionId }, orderBy: { id: "desc" }, select: { id: true, role: true } });
  return last?.role === "user" && (after === undefined || last.id > after);
}

/**
 * Make sure the session has a runner. Returns at once: the loop runs in the background.
 * When another instance runs the session, it picks the new message up itself.
 */
export async function start(deps: Deps, teamId: string, sessionId: string): Promise<void> {
  if (deps.runners.get(sessionId)) return;
  if (!(await deps.engine.lock.tryAcquire(sessionId))) return;
  if (deps.runners.get(sessionId)) {
    await deps.engine.lock.release(sessionId);
    return;
  }
  const controller = new AbortController();
  // What was asked before an abort is dropped with it; a message written after the abort
  // (while this runner is still closing) is answered by a new runner below.
  let abortedAt: string | undefined;
  controller.signal.addEventListener(
    "abort",
    () => {
      abortedAt = Id.ascending("message");
    },
    { once: true },
  );
  const done = (async () => {
    const statusDeps = { db: deps.engine.db, bus: deps.engine.bus, teamId };
    try {
      await Status.set(statusDeps, sessionId, { type: "busy" });
      do {
        await loop(deps, teamId, sessionId, controller.signal);
      } while (!controller.signal.aborted && (await unanswered(deps, sessionId)));
      if (deps.engine.compaction.prune) {
        const pruneDeps = { db: deps.engine.db, bus: deps.engine.bus, ...(deps.engine.now ? { now: deps.engine.now } : {}) };
        Background.run(sessionId, "prune", () => prune(pruneDeps, teamId, sessionId));
      }
    } catch (error) {
      console.error(`[session] the loop of ${sessionId} failed`, error);
    } finally {
      // Nothing here may throw: `done` is never awaited, so a rejection would be unhandled.
      try {
        await Status.set(statusDeps, sessionId, { type: "idle" });
      } catch (error) {
        console.error(`[session] could not set ${sessionId} idle`, error);
      }
      deps.runners.delete(sessionId);
      try {
        await deps.engine.lock.release(sessionId);
      } catch (error) {
        console.error(`[session] could not release the lock of ${sessionId}`, error);
      }
    }
    // A message may have arrived between the last check and the release, or after an abort:
    // its start() found this runner still busy and left it to us.
    try {
      if (await unanswered(deps, sessionId, abortedAt)) await start(deps, teamId, sessionId);
    } catch (error) {
      console.error(`[session] could not restart the loop of ${sessionId}`, error);
    }
  })();
  deps.runners.add({ sessionId, abort: controller, done });
}

async function loop(deps: Deps, teamId: string, sessionId: string, signal: AbortSignal): Promise<void> {
  const { engine } = deps;
  let step = 0;
  // Cleared when a compaction could not help (Compaction.canHelp): no more automatic
  // compactions in this run, so a context that stays full cannot loop.
  let compactable = true;
  const runner = () => deps.runners.get(sessionId);
  while (!signal.aborted) {
    // §5 step 1: the history from the last completed compaction on (§8 filterCompacted).
    const messages = filterCompacted(await history(deps, sessionId));
    const lastUser = messages.findLast((m) => m.info.role === "user");
    if (!lastUser || lastUser.info.role !== "user") return;
    // A summary answering an older compaction does not end the turn: the synthetic
    // "continue" message or a prompt queued behind the compaction is answered next.
    const lastAssistant = messages.findLast(
      (m) => m.info.role === "assistant" && !(m.info.summary && m.info.parentId !== lastUser.info.id),
    );
    if (lastAssistant && lastAssistant.info.role === "assistant" && lastAssistant.info.id > lastUser.info.id) {
      const a = lastAssistant.info;
      if (a.error) return;
      if (a.finish && a.finish !== "tool-calls" && a.finish !== "unknown") return;
    }
    const user = lastUser.info;
    const agent = Agent.get(user.agent);
    const row = await engine.db.session.findUniqueOrThrow({ where: { id: sessionId } });
    // §5 step 3: a compaction waiting to run goes first.
    const request = pendingCompaction(messages);
    if (request) {
      const result = await Compaction.process({
        engine,
        teamId,
        sessionId,
        history: messages,
        request,
        directory: row.directory,
        signal,
        onProcessor: (processor) => {
          const current = runner();
          if (current) current.current = processor;
        },
      });
      if (result === "stop") return;
      continue;
    }
    const autoCompact = (overflowingId: string): boolean => {
      if (!compactable || !engine.compaction.auto) return false;
      if (!Compaction.canHelp(messages, overflowingId)) {
        compactable = false;
        return false;
      }
      return true;
    };
    const compaction = { teamId, sessionId, agent: user.agent, model: user.model, auto: true, overflow: true };
    const assistant: AssistantMessage = {
      id: Id.ascending("message"),
      sessionId,
      role: "assistant",
      parentId: user.id,
      providerId: user.model.providerId,
      modelId: user.model.modelId,
      agent: agent.name,
      path: { cwd: row.directory, root: row.directory },
      cost: 0,
      tokens: emptyTokens(),
      time: { created: now(engine) },
    };
    let model: ResolvedModel;
    try {
      model = engine.resolveModel(user.model);
    } catch (error) {
      await failBeforeStart(deps, teamId, assistant, error);
      return;
    }
    // §5 step 4: the last finished answer filled the context — compact before going on.
    const lastFinished = messages.findLast((m) => m.info.role === "assistant" && m.info.finish !== undefined);
    if (
      lastFinished?.info.role === "assistant" &&
      !lastFinished.info.summary &&
      isOverflow({ tokens: lastFinished.info.tokens, limit: model.limit, auto: engine.compaction.auto }) &&
      autoCompact(lastFinished.info.id)
    ) {
      await Compaction.create(engine, compaction);
      continue;
    }
    step++;
    const lastStep = step >= agent.steps;
    const scope: ToolScope | undefined = lastStep
      ? undefined
      : {
          sessionId,
          teamId,
          projectId: row.projectId,
          messageId: assistant.id,
          agent,
          directory: row.directory,
          signal,
          processor: () => processor,
          calls: turnCalls(messages, lastUser.info.id),
          ...(await rulesAndReach(deps, { teamId, projectId: row.projectId, agent: agent.name, sessionRules: Ruleset.safeParse(row.permission).data })),
        };
    const processor: Processor = new Processor({
      db: engine.db,
      bus: engine.bus,
      teamId,
      assistant,
      prices: model.cost,
      abort: signal,
      maxAttempts: engine.maxAttempts,
      isRejection,
      flushMs: engine.flushMs,
      now: engine.now,
      overflows: (tokens) => compactable && isOverflow({ tokens, limit: model.limit, auto: engine.compaction.auto }),
      stream: () =>
        streamText({
          model: model.language,
          system: systemPrompt({ agent, directory: row.directory, model: model.ref, lastStep }),
          messages: toModelMessages(messages),
          tools: scope ? toolSet(deps, scope) : {},
          abortSignal: signal,
          maxRetries: 0,
          // Errors come through fullStream, where the processor classifies, stores and
          // retries them; the SDK's default onError would only print each one again.
          onError: () => undefined,
        }),
    });
    await processor.writer.message(assistant);
    const current = runner();
    if (current) current.current = processor;
    const result = await processor.run();
    if (current) current.current = undefined;
    // §5 step 6: the step filled the context (its usage says so, or the provider refused
    // the request as too long) — compact and go on. On the agent's last step the turn
    // ends instead; the next prompt compacts first (step 4).
    const tooLong = result === "stop" && processor.message.error?.name === "ContextOverflowError";
    if (((result === "compact" && !lastStep) || tooLong) && !signal.aborted && autoCompact(assistant.id)) {
      await Compaction.create(engine, compaction);
      continue;
    }
    if (result === "stop") return;
    if (lastStep) return;
  }
}

async function failBeforeStart(deps: Deps, teamId: string, assistant: AssistantMessage, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const info: AssistantMessage = { ...assistant, error: { name: "UnknownError", message }, time: { created: assistant.time.created, completed: now(deps.engine) } };
  await deps.engine.db.message.create({
    data: { id: info.id, sessionId: info.sessionId, role: info.role, data: messageData(info), timeCreated: new Date(info.time.created) },
  });
  deps.engine.bus.publish(Event.MessageUpdated, { info }, { teamId, sessionId: info.sessionId });
  deps.engine.bus.publish(Event.Error, { sessionId: info.sessionId, error: { name: "UnknownError", message } }, { teamId, sessionId: info.sessionId });
}

/** The tool calls made since the user's last message, oldest first (for the doom-loop check). */
function turnCalls(messages: WithParts[], userId: string): Call[] {
  const calls: Call[] = [];
  for (const m of messages) {
    if (m.info.id <= userId) continue;
    for (const p of m.parts) if (p.type === "tool") calls.push({ tool: p.tool, input: p.state.input });
  }
  return calls;
}

/** The permission a tool asks under (write edits files). */
const TOOL_PERMISSION: Record<string, string> = { write: "edit" };
const permissionOf = (tool: string) => TOOL_PERMISSION[tool] ?? tool;

interface ToolScope {
  sessionId: string;
  teamId: string;
  projectId: string;
  /** The rules of this step's calls (approvals are re-read at every question). */
  stack: RuleStack;
  /** Every layer with the approvals as they were at the step's start: which tools exist, `ctx.check`. */
  layers: Layer[];
  boundary: Boundary;
  calls: Call[];
  messageId: string;
  agent: Agent.Agent;
  directory: string;
  signal: AbortSignal;
  processor: () => Processor;
}

/**
 * What the tools of one step may do: the rules (defaults → config → team and project
 * policy → agent → approvals → session) and the places beyond the project that are
 * refused outright — the data directory, the projects root and every other team's project
 * (the team's other projects stay reachable after a question).
 */
async function rulesAndReach(
  deps: Deps,
  input: { teamId: string; projectId: string; agent: string; sessionRules: Ruleset | undefined },
): Promise<Pick<ToolScope, "stack" | "layers" | "boundary">> {
  const stack = await deps.permissions.stack(input.teamId, input.projectId, input.agent, input.sessionRules);
  const layers = await deps.permissions.layersOf(stack, input.projectId, input.agent);
  const projects = await deps.engine.db.project.findMany({ where: { id: { not: input.projectId } }, select: { teamId: true, directory: true } });
  const boundary: Boundary = {
    forbidden: [...deps.forbidden, ...projects.filter((p) => p.teamId !== input.teamId).map((p) => p.directory)],
    teamProjects: projects.filter((p) => p.teamId === input.teamId).map((p) => p.directory),
  };
  return { stack, layers, boundary };
}

function toolSet(deps: Deps, scope: ToolScope): ToolSet {
  const set: ToolSet = {};
  const ask = (request: PermissionRequest, callId: string, signal: AbortSignal) =>
    deps.permissions.ask({
      teamId: scope.teamId,
      projectId: scope.projectId,
      sessionId: scope.sessionId,
      agent: scope.agent.name,
      stack: scope.stack,
      request,
      tool: { messageId: scope.messageId, callId },
      signal,
    });
  for (const t of deps.tools) {
    if (!Agent.allows(scope.agent, t.id)) continue;
    if (disabled(permissionOf(t.id), scope.layers)) continue;
    set[t.id] = aiTool({
      description: t.description,
      inputSchema: jsonSchema(z.toJSONSchema(t.parameters, { io: "input" }) as Parameters<typeof jsonSchema>[0]),
      execute: async (input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal }) => {
        const signal = options.abortSignal ?? scope.signal;
        const call = { tool: t.id, input };
        const loop = isDoomLoop(scope.calls, call);
        scope.calls.push(call);
        if (loop) {
          await ask(
            { permission: "doom_loop", patterns: [t.id], always: [t.id], metadata: { tool: t.id, input, kind: loop } },
            options.toolCallId,
            signal,
          );
        }
        const ctx: ToolContext = {
          sessionId: scope.sessionId,
          messageId: scope.messageId,
          callId: options.toolCallId,
          agent: scope.agent.name,
          directory: scope.directory,
          outputDir: outputDirectory(deps.engine.dataDir, scope.teamId, scope.sessionId),
          boundary: scope.boundary,
          sandbox: deps.sandbox,
          abort: signal,
          ask: (request) => ask(request, options.toolCallId, signal),
          check: (permission, pattern) => verdictOf({ permission, patterns: [pattern] }, scope.layers).action,
          update: (patch) => {
            void scope.processor().updateTool(options.toolCallId, patch).catch((error: unknown) => {
              console.error("[session] could not update a running tool", error);
            });
          },
          canUse: (name) => Agent.allows(scope.agent, name) && deps.tools.some((x) => x.id === name),
          todos: {
            read: () => Todo.read(deps.engine.db, scope.sessionId),
            write: (todos) => Todo.write({ db: deps.engine.db, bus: deps.engine.bus, teamId: scope.teamId }, scope.sessionId, todos),
          },
        };
        return deps.executeTool(t, input, ctx);
      },
      toModelOutput: ({ output }: { output: { output: string } }) => ({ type: "text", value: output.output }),
    });
  }
  return set;
}
