import {
  type FinishReason,
  type LanguageModelStreamPart,
  type LanguageModelUsage,
  type ModelMessage,
  type ProviderMetadata,
  type ToolSet,
  experimental_streamLanguageModelCall as streamModelCall,
} from "ai";
import type { ResolvedModel } from "../services";

/**
 * The one door to the model: every call — an agent's step, a compaction summary, a
 * title — goes through here, and is one model call (one step; the session's loop makes
 * the next). The AI SDK prepares the call (prompt and tools for the provider), streams
 * it and parses its tool calls (`streamLanguageModelCall`); this module runs the step's
 * tools once the model has finished asking for them, as `streamText` does, without the
 * dozen web-stream stages `streamText` puts between the provider and its reader (about
 * 0.08 ms of CPU per streamed delta, measured over HTTP: see bench:stream). There are no
 * retries here (the processor retries with its own rules and shows them), and errors
 * arrive as events, where the processor classifies them.
 */

export interface LlmRequest {
  model: ResolvedModel;
  system: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  abortSignal: AbortSignal;
}

type ModelPart = LanguageModelStreamPart<ToolSet>;
/** The parts of the model's stream that reach the processor as they are. */
const PASSED_TYPES = [
  "text-start",
  "text-delta",
  "text-end",
  "reasoning-start",
  "reasoning-delta",
  "reasoning-end",
  "tool-input-start",
  "tool-input-delta",
  "tool-input-end",
  "tool-call",
  "tool-result",
  "tool-error",
] as const;
type Passed = Extract<ModelPart, { type: (typeof PASSED_TYPES)[number] }>;
const PASSED = new Set<string>(PASSED_TYPES);
const isPassed = (part: ModelPart): part is Passed => PASSED.has(part.type);
type ToolCall = Extract<ModelPart, { type: "tool-call" }>;

/** What one model call streams, in order: the step's start, its content, its tools' outcomes, its end. */
export type LlmEvent =
  | { type: "start-step" }
  | Passed
  | { type: "tool-result"; toolCallId: string; toolName: string; output: unknown }
  | { type: "tool-error"; toolCallId: string; toolName: string; error: unknown }
  | { type: "finish-step"; finishReason: FinishReason; usage: LanguageModelUsage; providerMetadata?: ProviderMetadata }
  | { type: "error"; error: unknown }
  | { type: "abort"; reason?: string };

export interface StreamHandle {
  fullStream: AsyncIterable<LlmEvent>;
}

/** The usage of a step whose stream carried none. */
const NO_USAGE: LanguageModelUsage = {
  inputTokens: undefined,
  inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined },
  outputTokens: undefined,
  outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
  totalTokens: undefined,
  raw: undefined,
};

/** The finish reasons after which the step's tools run (the AI SDK's rule: not after a cut-off answer). */
const RUNS_TOOLS = new Set<FinishReason>(["stop", "tool-calls"]);

function abortEvent(signal: AbortSignal): LlmEvent {
  const reason: unknown = signal.reason;
  if (reason === undefined) return { type: "abort" };
  return { type: "abort", reason: reason instanceof Error ? reason.message : String(reason) };
}

/** Start a streamed model call; its one consumer reads `fullStream` once. */
export function stream(request: LlmRequest): StreamHandle {
  return { fullStream: step(request) };
}

async function* step(request: LlmRequest): AsyncGenerator<LlmEvent> {
  const { abortSignal: signal, tools } = request;
  if (signal.aborted) return yield abortEvent(signal);
  let call: Awaited<ReturnType<typeof streamModelCall>>;
  const calling = streamModelCall({
    model: request.model.language,
    system: request.system,
    messages: request.messages,
    ...(tools ? { tools } : {}),
    abortSignal: signal,
  });
  try {
    // An abort ends the wait for the provider's answer even if the provider ignores it.
    const answered = await untilAborted(calling, signal);
    if (!answered) {
      void calling.then((late) => late.stream.cancel(), () => undefined);
      return yield abortEvent(signal);
    }
    call = answered.value;
  } catch (error) {
    return yield signal.aborted ? abortEvent(signal) : { type: "error", error };
  }
  yield { type: "start-step" };
  const reader = call.stream.getReader();
  // An abort releases a pending read at once, even from a provider that ignores the signal
  // (one that came while start-step was handled included: a listener added to an aborted
  // signal is never called).
  const cancel = () => void reader.cancel(signal.reason).catch(() => undefined);
  signal.addEventListener("abort", cancel, { once: true });
  if (signal.aborted) cancel();
  const calls: ToolCall[] = [];
  let end: Extract<ModelPart, { type: "model-call-end" }> | undefined;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<ModelPart>;
      try {
        next = await reader.read();
      } catch (error) {
        return yield signal.aborted ? abortEvent(signal) : { type: "error", error };
      }
      if (signal.aborted) return yield abortEvent(signal);
      if (next.done) break;
      const part = next.value;
      if (part.type === "model-call-end") end = part;
      else if (part.type === "error") yield { type: "error", error: part.error };
      else if (isPassed(part)) {
        if (part.type === "tool-call" && !part.invalid && !part.providerExecuted && tools?.[part.toolName]?.execute) calls.push(part);
        yield part;
      }
    }
  } finally {
    signal.removeEventListener("abort", cancel);
    // A consumer that stopped early (an error event ends its attempt) stops the provider's stream too.
    void reader.cancel().catch(() => undefined);
  }
  // A stream that ended without the model's finish (a provider that closed it early)
  // ends its step as "other", with no usage and no tools run, as `streamText` does: the
  // loop then stops instead of asking again.
  if (!end) return yield { type: "finish-step", finishReason: "other", usage: NO_USAGE };
  if (calls.length > 0 && RUNS_TOOLS.has(end.finishReason)) {
    for await (const outcome of runTools(calls, request)) {
      if (signal.aborted) return yield abortEvent(signal);
      yield outcome;
    }
    if (signal.aborted) return yield abortEvent(signal);
  }
  yield {
    type: "finish-step",
    finishReason: end.finishReason,
    usage: end.usage,
    ...(end.providerMetadata ? { providerMetadata: end.providerMetadata } : {}),
  };
}

/** `work`'s value, or undefined once `signal` aborts first. */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<{ value: T } | undefined> {
  if (signal.aborted) return undefined;
  let onAbort = () => undefined as void;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work.then((value) => ({ value })), aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** A tool's result: its promised value, or the last value it streamed. */
async function outputOf(result: unknown): Promise<unknown> {
  if (typeof result === "object" && result !== null && Symbol.asyncIterator in result) {
    let last: unknown;
    for await (const value of result as AsyncIterable<unknown>) last = value;
    return last;
  }
  return await result;
}

/** The step's tools, all at once; their outcomes as each finishes (an abort stops the wait). */
async function* runTools(calls: ToolCall[], request: LlmRequest): AsyncGenerator<LlmEvent> {
  const { abortSignal: signal, tools, messages } = request;
  const done: LlmEvent[] = [];
  let running = calls.length;
  let wake: (() => void) | undefined;
  const settle = (outcome: LlmEvent) => {
    done.push(outcome);
    running--;
    wake?.();
  };
  for (const call of calls) {
    const execute = tools?.[call.toolName]?.execute;
    const { toolCallId, toolName } = call;
    Promise.resolve()
      .then(() => execute?.(call.input, { toolCallId, messages, abortSignal: signal, context: undefined }))
      .then(outputOf)
      .then(
        (output) => settle({ type: "tool-result", toolCallId, toolName, output }),
        (error: unknown) => settle({ type: "tool-error", toolCallId, toolName, error }),
      );
  }
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    while (running > 0 || done.length > 0) {
      const outcome = done.shift();
      if (outcome) {
        yield outcome;
        continue;
      }
      if (signal.aborted) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** The whole text of a model's answer; a provider error or an abort rejects. */
export async function text(request: LlmRequest): Promise<string> {
  let answer = "";
  for await (const event of stream(request).fullStream) {
    if (event.type === "text-delta") answer += event.text;
    else if (event.type === "error") throw event.error instanceof Error ? event.error : new Error(String(event.error));
    else if (event.type === "abort") throw new Error("the model call was aborted");
  }
  return answer;
}
