import {
  type FinishReason,
  type LanguageModelStreamPart,
  type LanguageModelUsage,
  type ModelMessage,
  type ProviderMetadata,
  type ToolSet,
  experimental_streamLanguageModelCall as streamModelCall,
} from "ai";
import { DEFAULT_PROVIDER_LIMITS, type ProviderLimits, ProviderLimitError, isProviderLimitError, seconds } from "../provider/limits";
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
 *
 * A provider's output is untrusted (server/provider/limits.ts): the model call has a
 * wall-clock limit (`stepTimeoutMs`, from the request to the stream's end; the tools it
 * then runs are not counted) and an idle limit (`idleTimeoutMs` without a stream part: an
 * SSE comment such as `: keepalive` makes none), and a text or reasoning part or a tool
 * call's input may not grow past `maxPartChars`. Over one, the call is aborted and the step
 * ends with a `ProviderLimitError` (an error event, which the processor does not retry).
 */

export interface LlmRequest {
  model: ResolvedModel;
  system: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  /** The agent's sampling temperature (an agent file's `temperature`); the provider's default when unset. */
  temperature?: number;
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

/**
 * The clocks of one model call (see above): one timer, set for whichever limit comes
 * first; a part only records the time (`progress`), so a streamed delta costs one
 * `Date.now()`. Over a limit, `signal` aborts and `error` says which.
 */
class StepWatch {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  error: ProviderLimitError | undefined;
  private readonly start = Date.now();
  private last = this.start;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly limits: ProviderLimits) {
    this.arm(this.start);
  }

  progress(): void {
    this.last = Date.now();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(now: number): void {
    const due = Math.min(this.start + this.limits.stepTimeoutMs, this.last + this.limits.idleTimeoutMs);
    this.timer = setTimeout(() => this.check(), Math.max(0, due - now));
    this.timer.unref?.();
  }

  private check(): void {
    const now = Date.now();
    const { stepTimeoutMs, idleTimeoutMs } = this.limits;
    if (now - this.start >= stepTimeoutMs) this.fire(ProviderLimitError.over("stepTimeoutMs", `did not finish its answer within ${seconds(stepTimeoutMs)}`, stepTimeoutMs));
    else if (now - this.last >= idleTimeoutMs) this.fire(ProviderLimitError.over("idleTimeoutMs", `sent no output for ${seconds(idleTimeoutMs)}`, idleTimeoutMs));
    else this.arm(now);
  }

  private fire(error: ProviderLimitError): void {
    this.timer = undefined;
    this.error = error;
    this.controller.abort(error);
  }
}

/** The sizes of a call's parts, by id: text, reasoning, tool inputs (one map lookup per delta). */
class PartSizes {
  private readonly texts = new Map<string, number>();
  private readonly reasoning = new Map<string, number>();
  private readonly inputs = new Map<string, number>();
  constructor(private readonly max: number) {}

  /** The error when `part` makes its part too long. */
  check(part: Passed): ProviderLimitError | undefined {
    let sizes: Map<string, number>;
    let added: number;
    if (part.type === "text-delta") {
      sizes = this.texts;
      added = part.text.length;
    } else if (part.type === "reasoning-delta") {
      sizes = this.reasoning;
      added = part.text.length;
    } else if (part.type === "tool-input-delta") {
      sizes = this.inputs;
      added = part.delta.length;
    } else return undefined;
    const size = (sizes.get(part.id) ?? 0) + added;
    if (size > this.max) {
      const what = part.type === "tool-input-delta" ? "a tool call's input" : part.type === "text-delta" ? "a text part" : "a reasoning part";
      return ProviderLimitError.over("maxPartChars", `sent ${what} longer than ${this.max} characters`, this.max);
    }
    sizes.set(part.id, size);
    return undefined;
  }
}

/**
 * An error as the step reports it: a broken provider limit found in its causes (the AI
 * SDK wraps a failed read of a body as "Failed to process successful response") is
 * reported itself, so the turn's error names the limit.
 */
function reported(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (isProviderLimitError(current)) return current;
    current = current.cause;
  }
  return error;
}

/** Start a streamed model call; its one consumer reads `fullStream` once. */
export function stream(request: LlmRequest): StreamHandle {
  return { fullStream: step(request) };
}

async function* step(request: LlmRequest): AsyncGenerator<LlmEvent> {
  const { abortSignal: outer, tools } = request;
  if (outer.aborted) return yield abortEvent(outer);
  const limits = request.model.providerLimits ?? DEFAULT_PROVIDER_LIMITS;
  const watch = new StepWatch(limits);
  // The call stops on the caller's abort or on a limit of the watch's; the tools run after it on the caller's alone.
  const signal = AbortSignal.any([outer, watch.signal]);
  /** How the call ends once `signal` aborted: a broken limit is an error, the caller's abort an abort. */
  const stopped = (): LlmEvent => (watch.error && !outer.aborted ? { type: "error", error: watch.error } : abortEvent(outer));
  try {
    const opened = await openCall(request, signal);
    if (opened.kind === "stopped") return yield stopped();
    if (opened.kind === "failed") return yield { type: "error", error: reported(opened.error) };
    const call = opened.call;
    watch.progress();
    yield { type: "start-step" };
    const reader = call.stream.getReader();
    // An abort releases a pending read at once, even from a provider that ignores the signal
    // (one that came while start-step was handled included: a listener added to an aborted
    // signal is never called).
    const cancel = () => void reader.cancel(signal.reason).catch(() => undefined);
    signal.addEventListener("abort", cancel, { once: true });
    if (signal.aborted) cancel();
    const calls: ToolCall[] = [];
    const sizes = new PartSizes(limits.maxPartChars);
    let end: Extract<ModelPart, { type: "model-call-end" }> | undefined;
    try {
      for (;;) {
        let next: ReadableStreamReadResult<ModelPart>;
        try {
          next = await reader.read();
        } catch (error) {
          return yield signal.aborted ? stopped() : { type: "error", error: reported(error) };
        }
        if (signal.aborted) return yield stopped();
        if (next.done) break;
        watch.progress();
        const part = next.value;
        if (part.type === "model-call-end") end = part;
        else if (part.type === "error") yield { type: "error", error: reported(part.error) };
        else if (isPassed(part)) {
          const tooLong = sizes.check(part);
          if (tooLong) return yield { type: "error", error: tooLong };
          if (part.type === "tool-call" && !part.invalid && !part.providerExecuted && tools?.[part.toolName]?.execute) calls.push(part);
          yield part;
        }
      }
    } finally {
      signal.removeEventListener("abort", cancel);
      // A consumer that stopped early (an error event ends its attempt) stops the provider's stream too.
      void reader.cancel().catch(() => undefined);
    }
    watch.stop();
    // A stream that ended without the model's finish (a provider that closed it early)
    // ends its step as "other", with no usage and no tools run, as `streamText` does: the
    // loop then stops instead of asking again.
    if (!end) return yield { type: "finish-step", finishReason: "other", usage: NO_USAGE };
    if (calls.length > 0 && RUNS_TOOLS.has(end.finishReason)) {
      for await (const outcome of runTools(calls, request)) {
        if (outer.aborted) return yield abortEvent(outer);
        yield outcome;
      }
      if (outer.aborted) return yield abortEvent(outer);
    }
    yield {
      type: "finish-step",
      finishReason: end.finishReason,
      usage: end.usage,
      ...(end.providerMetadata ? { providerMetadata: end.providerMetadata } : {}),
    };
  } finally {
    watch.stop();
  }
}

type ModelCall = Awaited<ReturnType<typeof streamModelCall>>;

/**
 * The provider's answer started: the call, or how it ended before it answered — `signal`
 * aborted (the wait ends even if the provider ignores the abort; a late answer is
 * cancelled) or the request failed.
 */
async function openCall(request: LlmRequest, signal: AbortSignal): Promise<{ kind: "open"; call: ModelCall } | { kind: "stopped" } | { kind: "failed"; error: unknown }> {
  const calling = streamModelCall({
    model: request.model.language,
    system: request.system,
    messages: request.messages,
    ...(request.tools ? { tools: request.tools } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.model.providerOptions ? { providerOptions: request.model.providerOptions } : {}),
    abortSignal: signal,
  });
  try {
    const answered = await untilAborted(calling, signal);
    if (answered) return { kind: "open", call: answered.value };
    void calling.then(
      (late) => late.stream.cancel(),
      () => undefined,
    );
    return { kind: "stopped" };
  } catch (error) {
    return signal.aborted ? { kind: "stopped" } : { kind: "failed", error };
  }
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
