import { modelsOf } from "../provider/team";
import * as Id from "../id";
import type { ResolvedModel, Services } from "../services";
import * as Event from "./events";
import { isCompletedSummary } from "./filter";
import * as LLM from "./llm";
import type { AssistantMessage, MessageError, ModelRef, Part, UserMessage, WithParts } from "./message";
import { emptyTokens } from "./message";
import { toModelMessages } from "./model-messages";
import { fillsWindow } from "./overflow";
import { Processor } from "./processor";
import * as Store from "./store";

/**
 * Compaction: when the context is full (or the user asks), the history is
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
export async function create(s: Services, input: CreateInput): Promise<{ info: UserMessage; parts: Part[] }> {
  const info: UserMessage = {
    id: Id.ascending("message"),
    sessionId: input.sessionId,
    role: "user",
    time: { created: s.clock.now() },
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
  return { info: await Store.createUserMessage(s, input.teamId, info, [part]), parts: [part] };
}

async function setCompacting(s: Services, sessionId: string, on: boolean): Promise<void> {
  await Store.updateSession(s, sessionId, { timeCompacting: on ? new Date(s.clock.now()) : null });
}

export interface ProcessInput {
  teamId: string;
  sessionId: string;
  /** The session's history as the model sees it (filterCompacted), containing `request`. */
  history: WithParts[];
  /** The compaction request to answer. */
  request: WithParts;
  directory: string;
  signal: AbortSignal;
}

/**
 * Answer a compaction request with a summary. "continue": the summary is written (and,
 * when automatic, the synthetic "continue" message after it); "stop": it failed — the
 * error is stored on the summary message (a request that does not fit the context is a
 * ContextOverflowError) and the history is left as it was.
 */
export async function process(s: Services, input: ProcessInput): Promise<"continue" | "stop"> {
  const { request } = input;
  if (request.info.role !== "user") throw new Error("a compaction request is a user message");
  const user = request.info;
  const summary = summaryMessage(s, input, user);
  await setCompacting(s, input.sessionId, true);
  let ok = false;
  try {
    let model: ResolvedModel;
    try {
      // The team's small model when it set one, else the session's.
      const models = await modelsOf(s, input.teamId);
      model = models.compaction ? models.compaction() : models.resolve(user.model);
    } catch (error) {
      await failEarly(s, input.teamId, summary, { name: "UnknownError", message: error instanceof Error ? error.message : String(error) });
      return "stop";
    }
    if (!(await summarize(s, input, summary, model))) return "stop";
    const part = request.parts.find((p) => p.type === "compaction");
    if (part?.type === "compaction" && part.auto) await writeContinue(s, input.teamId, user);
    ok = true;
    return "continue";
  } finally {
    await setCompacting(s, input.sessionId, false);
    if (ok) s.bus.publish(Event.Compacted, { sessionId: input.sessionId }, { teamId: input.teamId, sessionId: input.sessionId });
  }
}

function summaryMessage(s: Services, input: ProcessInput, user: UserMessage): AssistantMessage {
  return {
    id: Id.ascending("message"),
    sessionId: input.sessionId,
    role: "assistant",
    parentId: user.id,
    providerId: user.model.providerId,
    modelId: user.model.modelId,
    agent: s.agents.get("compaction").name,
    path: { cwd: input.directory, root: input.directory },
    summary: true,
    cost: 0,
    tokens: emptyTokens(),
    time: { created: s.clock.now() },
  };
}

/** Stream the summary; false when it failed (the error is stored on it). */
async function summarize(s: Services, input: ProcessInput, summary: AssistantMessage, model: ResolvedModel): Promise<boolean> {
  const user = input.request.info;
  const upTo = input.history.filter((m) => m.info.id <= user.id);
  const processor = new Processor(s, {
    teamId: input.teamId,
    assistant: summary,
    prices: model.cost,
    abort: input.signal,
    // The summary step is not held to the usable limit (it is asked exactly when the
    // history reached it), only to the whole window.
    overflows: (tokens) => fillsWindow(tokens, model.limit),
  });
  const result = await s.runners.streaming(input.sessionId, processor, () =>
    processor.run(() => LLM.stream({ model, system: SUMMARY_PROMPT, messages: toModelMessages(upTo, { images: model.images }), abortSignal: input.signal })),
  );
  if (result === "stop") return false;
  const failure = await summaryFailure(s, result, processor.message);
  if (!failure) return true;
  processor.message.error = failure;
  await processor.writer.message(processor.message);
  s.bus.publish(Event.Error, { sessionId: input.sessionId, error: failure }, { teamId: input.teamId, sessionId: input.sessionId });
  return false;
}

/** After an automatic compaction: a synthetic user message that lets the agent go on. */
async function writeContinue(s: Services, teamId: string, user: UserMessage): Promise<void> {
  const time = s.clock.now();
  const next: UserMessage = { id: Id.ascending("message"), sessionId: user.sessionId, role: "user", time: { created: time }, agent: user.agent, model: user.model };
  const text: Part = {
    id: Id.ascending("part"),
    sessionId: user.sessionId,
    messageId: next.id,
    type: "text",
    text: CONTINUE_TEXT,
    synthetic: true,
    time: { start: time, end: time },
  };
  await Store.createUserMessage(s, teamId, next, [text]);
}

/** Why a summary that streamed without a provider error still cannot replace the history. */
async function summaryFailure(s: Services, result: "continue" | "compact", message: AssistantMessage): Promise<MessageError | undefined> {
  if (result === "compact") return { name: "ContextOverflowError", message: TOO_LARGE };
  if (message.finish === undefined) return { name: "UnknownError", message: "The summary ended before the model finished it; the history was left as it was." };
  if (!(await hasText(s, message.id))) return { name: "UnknownError", message: "The model returned an empty summary; the history was left as it was." };
  return undefined;
}

async function hasText(s: Services, messageId: string): Promise<boolean> {
  const rows = await s.db.part.findMany({ where: { messageId, type: "text" }, select: { data: true } });
  return rows.some((row) => {
    const data = row.data as { text?: unknown } | null;
    return typeof data?.text === "string" && data.text.trim() !== "";
  });
}

async function failEarly(s: Services, teamId: string, summary: AssistantMessage, error: MessageError): Promise<void> {
  const info: AssistantMessage = { ...summary, error, time: { created: summary.time.created, completed: s.clock.now() } };
  await Store.writeMessage(s, teamId, info);
  s.bus.publish(Event.Error, { sessionId: info.sessionId, error }, { teamId, sessionId: info.sessionId });
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
