import { streamText } from "ai";
import * as Agent from "../agent/agent";
import * as Id from "../id";
import type { Engine, ResolvedModel } from "./engine";
import * as Event from "./events";
import { isCompletedSummary } from "./filter";
import type { AssistantMessage, MessageError, ModelRef, Part, UserMessage, WithParts } from "./message";
import { emptyTokens } from "./message";
import { toModelMessages } from "./model-messages";
import { fillsWindow } from "./overflow";
import { Processor } from "./processor";
import { messageData, partData, sessionFromRow } from "./rows";

/**
 * Compaction (SPEC §8): when the context is full (or the user asks), the history is
 * replaced by a summary. A user message with a `compaction{auto, overflow}` part asks for
 * it; the hidden `compaction` agent answers without tools in an assistant message with
 * `summary: true`; from then on the model sees only that pair and what follows
 * (filterCompacted). An automatic compaction is followed by a synthetic user message that
 * lets the agent go on with its work.
 */

export const SUMMARY_PROMPT = [
  "You are summarizing a conversation between a user and Parley's coding agent so that the work can continue",
  "in a fresh context: the messages above will be replaced by your summary, so whatever is not in it is lost.",
  "",
  "Write a detailed summary to continue the work, in the user's language, with these sections:",
  "1. Goal — what the user wants to achieve, in their words where it matters.",
  "2. Constraints — requirements, preferences and rules the user stated or the work revealed.",
  "3. Progress — done; in progress; blocked (and on what).",
  "4. Key decisions — what was decided and why, including approaches that were tried and rejected.",
  "5. Next steps — what to do next, in order.",
  "6. Critical context — facts, errors, commands, values and outputs the next steps depend on.",
  "7. Relevant files — each path with what it contains or what was changed in it.",
  "",
  "Be specific and complete rather than short. Do not call tools; answer with the summary only.",
].join("\n");

export const CONTINUE_TEXT = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.";

export const TOO_LARGE = "Session too large to compact: the summary request does not fit the model's context window.";

function now(engine: Engine): number {
  return engine.now ? engine.now() : Date.now();
}

export interface CreateInput {
  teamId: string;
  sessionId: string;
  agent: string;
  model: ModelRef;
  /** Started by the loop (true) or asked for by the user (false). */
  auto: boolean;
  /** The context overflowed (the loop compacts because it must). */
  overflow?: boolean;
}

/** Write the request: a user message with a compaction part. The loop runs it next. */
export async function create(engine: Engine, input: CreateInput): Promise<{ info: UserMessage; parts: Part[] }> {
  const time = now(engine);
  const info: UserMessage = {
    id: Id.ascending("message"),
    sessionId: input.sessionId,
    role: "user",
    time: { created: time },
    agent: input.agent,
    model: input.model,
  };
  const part: Part = {
    id: Id.ascending("part"),
    sessionId: input.sessionId,
    messageId: info.id,
    type: "compaction",
    auto: input.auto,
    ...(input.overflow ? { overflow: true } : {}),
  };
  await writeUser(engine, input.teamId, info, [part]);
  return { info, parts: [part] };
}

async function writeUser(engine: Engine, teamId: string, info: UserMessage, parts: Part[]): Promise<void> {
  await engine.db.message.create({
    data: { id: info.id, sessionId: info.sessionId, role: "user", data: messageData(info), timeCreated: new Date(info.time.created) },
  });
  engine.bus.publish(Event.MessageUpdated, { info }, { teamId, sessionId: info.sessionId });
  for (const part of parts) {
    await engine.db.part.create({ data: { id: part.id, sessionId: part.sessionId, messageId: part.messageId, type: part.type, data: partData(part) } });
    engine.bus.publish(Event.PartUpdated, { part }, { teamId, sessionId: info.sessionId });
  }
}

async function setCompacting(engine: Engine, teamId: string, sessionId: string, on: boolean): Promise<void> {
  const row = await engine.db.session.update({
    where: { id: sessionId },
    data: { timeCompacting: on ? new Date(now(engine)) : null },
    include: { share: true },
  });
  engine.bus.publish(Event.Updated, { info: sessionFromRow(row) }, { teamId, sessionId });
}

export interface ProcessInput {
  engine: Engine;
  teamId: string;
  sessionId: string;
  /** The session's history as the model sees it (filterCompacted), containing `request`. */
  history: WithParts[];
  /** The compaction request to answer. */
  request: WithParts;
  directory: string;
  signal: AbortSignal;
  /** Told about the summary's processor while it streams (for resync), then undefined. */
  onProcessor?: (processor: Processor | undefined) => void;
}

/**
 * Answer a compaction request with a summary. "continue": the summary is written (and,
 * when automatic, the synthetic "continue" message after it); "stop": it failed — the
 * error is stored on the summary message (a request that does not fit the context is a
 * ContextOverflowError) and the history is left as it was.
 */
export async function process(input: ProcessInput): Promise<"continue" | "stop"> {
  const { engine, teamId, sessionId, request } = input;
  if (request.info.role !== "user") throw new Error("a compaction request is a user message");
  const user = request.info;
  const part = request.parts.find((p) => p.type === "compaction");
  const auto = part?.type === "compaction" && part.auto;
  const agent = Agent.get("compaction");
  const summary: AssistantMessage = {
    id: Id.ascending("message"),
    sessionId,
    role: "assistant",
    parentId: user.id,
    providerId: user.model.providerId,
    modelId: user.model.modelId,
    agent: agent.name,
    path: { cwd: input.directory, root: input.directory },
    summary: true,
    cost: 0,
    tokens: emptyTokens(),
    time: { created: now(engine) },
  };
  const scope = { teamId, sessionId };
  await setCompacting(engine, teamId, sessionId, true);
  let ok = false;
  try {
    let model: ResolvedModel;
    try {
      model = engine.resolveModel(user.model);
    } catch (error) {
      await failEarly(engine, teamId, summary, { name: "UnknownError", message: error instanceof Error ? error.message : String(error) });
      return "stop";
    }
    const upTo = input.history.filter((m) => m.info.id <= user.id);
    const processor = new Processor({
      db: engine.db,
      bus: engine.bus,
      teamId,
      assistant: summary,
      prices: model.cost,
      abort: input.signal,
      maxAttempts: engine.maxAttempts,
      flushMs: engine.flushMs,
      now: engine.now,
      // The summary step is not held to the usable limit (it is asked exactly when the
      // history reached it), only to the whole window.
      overflows: (tokens) => fillsWindow(tokens, model.limit),
      stream: () =>
        streamText({
          model: model.language,
          system: SUMMARY_PROMPT,
          messages: toModelMessages(upTo),
          abortSignal: input.signal,
          maxRetries: 0,
          onError: () => undefined,
        }),
    });
    await processor.writer.message(summary);
    input.onProcessor?.(processor);
    let result: Awaited<ReturnType<Processor["run"]>>;
    try {
      result = await processor.run();
    } finally {
      input.onProcessor?.(undefined);
    }
    const message = processor.message;
    if (result === "stop") return "stop";
    const failure = await summaryFailure(engine, result, message);
    if (failure) {
      message.error = failure;
      await processor.writer.message(message);
      engine.bus.publish(Event.Error, { sessionId, error: failure }, scope);
      return "stop";
    }
    if (auto) {
      const time = now(engine);
      const next: UserMessage = { id: Id.ascending("message"), sessionId, role: "user", time: { created: time }, agent: user.agent, model: user.model };
      const text: Part = {
        id: Id.ascending("part"),
        sessionId,
        messageId: next.id,
        type: "text",
        text: CONTINUE_TEXT,
        synthetic: true,
        time: { start: time, end: time },
      };
      await writeUser(engine, teamId, next, [text]);
    }
    ok = true;
    return "continue";
  } finally {
    await setCompacting(engine, teamId, sessionId, false);
    if (ok) engine.bus.publish(Event.Compacted, { sessionId }, scope);
  }
}

/** Why a summary that streamed without a provider error still cannot replace the history. */
async function summaryFailure(engine: Engine, result: "continue" | "compact", message: AssistantMessage): Promise<MessageError | undefined> {
  if (result === "compact") return { name: "ContextOverflowError", message: TOO_LARGE };
  if (message.finish === undefined) return { name: "UnknownError", message: "The summary ended before the model finished it; the history was left as it was." };
  if (!(await hasText(engine, message.id))) return { name: "UnknownError", message: "The model returned an empty summary; the history was left as it was." };
  return undefined;
}

async function hasText(engine: Engine, messageId: string): Promise<boolean> {
  const rows = await engine.db.part.findMany({ where: { messageId, type: "text" }, select: { data: true } });
  return rows.some((row) => {
    const data = row.data as { text?: unknown } | null;
    return typeof data?.text === "string" && data.text.trim() !== "";
  });
}

async function failEarly(engine: Engine, teamId: string, summary: AssistantMessage, error: MessageError): Promise<void> {
  const info: AssistantMessage = { ...summary, error, time: { created: summary.time.created, completed: now(engine) } };
  await engine.db.message.create({
    data: { id: info.id, sessionId: info.sessionId, role: info.role, data: messageData(info), timeCreated: new Date(info.time.created) },
  });
  engine.bus.publish(Event.MessageUpdated, { info }, { teamId, sessionId: info.sessionId });
  engine.bus.publish(Event.Error, { sessionId: info.sessionId, error }, { teamId, sessionId: info.sessionId });
}

/**
 * Whether compacting can help with an overflowing step: not when that step was the first
 * after a completed summary — its context was already just the summary plus the fixed
 * overhead (system prompt, tools), so another summary would overflow again, forever.
 */
export function canHelp(history: WithParts[], overflowingId: string): boolean {
  const summary = history.findLast((m) => m.info.role === "assistant" && isCompletedSummary(m.info));
  if (!summary) return true;
  return history.some(
    (m) => m.info.role === "assistant" && !m.info.summary && m.info.id > summary.info.id && m.info.id < overflowingId,
  );
}
