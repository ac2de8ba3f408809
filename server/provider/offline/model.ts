import { createHash } from "node:crypto";
import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4Content,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4Prompt,
  type LanguageModelV4StreamPart,
  type LanguageModelV4StreamResult,
  type LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { OFFLINE_MODEL_ID, OFFLINE_PROVIDER_ID } from "./constants";
import type { Failure } from "./parse";
import { type Turn, nextTurn, outputText } from "./script";
import { abortError, sleep } from "../../abort";

export { OFFLINE_LABEL, OFFLINE_MODEL_ID, OFFLINE_PROVIDER_ID } from "./constants";

/**
 * Parley's built-in offline model: a real AI SDK language model that needs no
 * key and no network. It reads the conversation, streams a short reasoning, text in small
 * chunks and genuine tool calls for the tools it is offered, and can be asked to fail
 * (429, 500, a hang, a dropped connection, a context overflow) so that retries and aborts
 * can be seen. Everything it says is a deterministic function of the prompt; the only
 * state is a small counter for "fail once"-style requests.
 */

export interface OfflineModelOptions {
  /**
   * Emit pace in estimated tokens (4 characters) per second. Default 200: fast, but
   * visibly streaming. 0 = no delays at all (tests). "stream slowly" caps it at 12.
   */
  tokensPerSecond?: number;
  /** Clock for the response timestamp. */
  now?: () => Date;
}

const DEFAULT_TOKENS_PER_SECOND = 200;
const SLOW_TOKENS_PER_SECOND = 12;
const URL = "offline://parley-offline";
/** Context window of the offline model (models.ts); "fill the context" reports nearly that much. */
const FULL_CONTEXT_TOKENS = 31_000;
const MAX_REMEMBERED_FAILURES = 500;

export class OfflineLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = "v4";
  readonly provider = OFFLINE_PROVIDER_ID;
  readonly modelId = OFFLINE_MODEL_ID;
  readonly supportedUrls: Record<string, RegExp[]> = {};

  private readonly tokensPerSecond: number;
  private readonly now: () => Date;
  /** Failed attempts per prompt, for "fail once" / "fail twice" / "fail 3 times". */
  private readonly failedAttempts = new Map<string, number>();

  constructor(options: OfflineModelOptions = {}) {
    const tps = options.tokensPerSecond ?? DEFAULT_TOKENS_PER_SECOND;
    if (!Number.isFinite(tps) || tps < 0) throw new RangeError(`tokensPerSecond must be ≥ 0, got ${tps}`);
    this.tokensPerSecond = tps;
    this.now = options.now ?? (() => new Date());
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { turn, key, failing } = this.prepare(options);
    if (failing) {
      throwIfAborted(options.abortSignal);
      if (failing.kind === "hang") {
        await waitForAbort(options.abortSignal);
        throw abortError(options.abortSignal);
      }
      throw failureError(failing, options.prompt);
    }
    const content: LanguageModelV4Content[] = [{ type: "reasoning", text: turn.reasoning }];
    if (turn.text) content.push({ type: "text", text: turn.text });
    turn.calls.forEach((call, i) => {
      content.push({ type: "tool-call", toolCallId: callId(key, i), toolName: call.toolName, input: JSON.stringify(call.input) });
    });
    return {
      content,
      finishReason: { unified: turn.finish, raw: turn.finish },
      usage: usage(options.prompt, turn),
      response: { id: responseId(key), modelId: this.modelId, timestamp: this.now() },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { turn, key, failing } = this.prepare(options);
    throwIfAborted(options.abortSignal);
    // An HTTP error arrives before any byte of the stream, as with a real provider.
    if (failing && (failing.kind === "status" || failing.kind === "overflow")) throw failureError(failing, options.prompt);
    const cancel = new AbortController();
    const signal = options.abortSignal ? AbortSignal.any([options.abortSignal, cancel.signal]) : cancel.signal;
    const tps = turn.slow && this.tokensPerSecond > 0 ? Math.min(this.tokensPerSecond, SLOW_TOKENS_PER_SECOND) : this.tokensPerSecond;
    const parts = this.produce(turn, key, failing, options.prompt, signal, tps);
    let cancelled = false;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async pull(controller) {
        try {
          const next = await parts.next();
          if (cancelled) return;
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          if (!cancelled) controller.error(error);
        }
      },
      cancel() {
        cancelled = true;
        cancel.abort();
      },
    });
    return { stream, request: { url: URL }, response: { headers: {} } };
  }

  private prepare(options: LanguageModelV4CallOptions): { turn: Turn; key: string; failing: Failure | undefined } {
    const turn = nextTurn(options);
    const key = promptHash(options.prompt);
    const failure = turn.failure?.failure;
    return { turn, key, failing: failure && this.shouldFail(key, failure) ? failure : undefined };
  }

  /** Whether this attempt fails; a success resets the count for the prompt. */
  private shouldFail(key: string, failure: Failure): boolean {
    if (failure.times === undefined) return true;
    const failed = this.failedAttempts.get(key) ?? 0;
    if (failed >= failure.times) {
      this.failedAttempts.delete(key);
      return false;
    }
    this.failedAttempts.set(key, failed + 1);
    if (this.failedAttempts.size > MAX_REMEMBERED_FAILURES) {
      const oldest = this.failedAttempts.keys().next();
      if (!oldest.done) this.failedAttempts.delete(oldest.value);
    }
    return true;
  }

  private async *produce(
    turn: Turn,
    key: string,
    failing: Failure | undefined,
    prompt: LanguageModelV4Prompt,
    signal: AbortSignal,
    tokensPerSecond: number,
  ): AsyncGenerator<LanguageModelV4StreamPart> {
    const pace = async (chars: number) => {
      throwIfAborted(signal);
      if (tokensPerSecond > 0) await sleep(((chars / 4) * 1000) / tokensPerSecond, signal);
    };
    yield { type: "stream-start", warnings: [] };
    yield { type: "response-metadata", id: responseId(key), modelId: this.modelId, timestamp: this.now() };

    const reasoningId = `reasoning_${key.slice(0, 12)}`;
    const textId = `text_${key.slice(0, 12)}`;
    const reasoning = failing && turn.failure ? turn.failure.reasoning : turn.reasoning;
    yield { type: "reasoning-start", id: reasoningId };
    for (const delta of chunks(reasoning)) {
      await pace(delta.length);
      yield { type: "reasoning-delta", id: reasoningId, delta };
    }
    yield { type: "reasoning-end", id: reasoningId };

    if (failing && turn.failure) {
      const pieces = chunks(turn.failure.text);
      const until = failing.kind === "drop" ? Math.max(1, Math.floor(pieces.length / 2)) : pieces.length;
      yield { type: "text-start", id: textId };
      for (const delta of pieces.slice(0, until)) {
        await pace(delta.length);
        yield { type: "text-delta", id: textId, delta };
      }
      if (failing.kind === "hang") {
        await waitForAbort(signal);
        throw abortError(signal);
      }
      throw failureError(failing, prompt);
    }

    if (turn.text) {
      yield { type: "text-start", id: textId };
      for (const delta of chunks(turn.text)) {
        await pace(delta.length);
        yield { type: "text-delta", id: textId, delta };
      }
      yield { type: "text-end", id: textId };
    }

    for (const [i, call] of turn.calls.entries()) {
      const id = callId(key, i);
      const input = JSON.stringify(call.input);
      await pace(call.toolName.length);
      yield { type: "tool-input-start", id, toolName: call.toolName };
      for (let at = 0; at < input.length; at += 16) {
        const delta = input.slice(at, at + 16);
        await pace(delta.length);
        yield { type: "tool-input-delta", id, delta };
      }
      yield { type: "tool-input-end", id };
      yield { type: "tool-call", toolCallId: id, toolName: call.toolName, input };
    }

    throwIfAborted(signal);
    yield { type: "finish", finishReason: { unified: turn.finish, raw: turn.finish }, usage: usage(prompt, turn) };
  }
}

export function createOfflineModel(options?: OfflineModelOptions): OfflineLanguageModel {
  return new OfflineLanguageModel(options);
}

/** Text in small pieces of one or two words (whitespace kept, so they join back exactly). */
export function chunks(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 2) out.push(words.slice(i, i + 2).join(""));
  return out;
}

function hash(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

function promptHash(prompt: LanguageModelV4Prompt): string {
  return hash(
    JSON.stringify(prompt, (_key, value: unknown) => (value instanceof Uint8Array ? `bytes:${hash(Buffer.from(value).toString("base64"))}` : value)),
  );
}

function responseId(key: string): string {
  return `offline-${key.slice(0, 16)}`;
}

/** Unique per prompt and position: a later step (a longer prompt) gets new ids. */
function callId(key: string, index: number): string {
  return `call_${hash(`${key}:${index}`).slice(0, 20)}`;
}

const tokens = (chars: number) => Math.ceil(chars / 4);

function promptChars(prompt: LanguageModelV4Prompt): number {
  let chars = 0;
  for (const message of prompt) {
    if (message.role === "system") {
      chars += message.content.length;
      continue;
    }
    for (const part of message.content) {
      if (part.type === "text" || part.type === "reasoning") chars += part.text.length;
      else if (part.type === "tool-call") chars += part.toolName.length + (JSON.stringify(part.input) ?? "").length;
      else if (part.type === "tool-result") chars += outputText(part.output).text.length;
    }
  }
  return chars;
}

function usage(prompt: LanguageModelV4Prompt, turn: Turn): LanguageModelV4Usage {
  const input = Math.max(tokens(promptChars(prompt)), turn.fillContext ? FULL_CONTEXT_TOKENS : 0);
  const reasoning = tokens(turn.reasoning.length);
  const text = tokens(turn.text.length + turn.calls.reduce((n, c) => n + c.toolName.length + JSON.stringify(c.input).length, 0));
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: text + reasoning, text, reasoning },
  };
}

function failureError(failure: Failure, prompt: LanguageModelV4Prompt): Error {
  const body = (message: string, type: string, code: string | null) => JSON.stringify({ error: { message, type, code } });
  switch (failure.kind) {
    case "status": {
      const status = failure.status;
      if (status === 429) {
        const message = "Rate limit reached for parley-offline (simulated by the offline model). Please try again in 1s.";
        return new APICallError({
          message,
          url: URL,
          requestBodyValues: { model: OFFLINE_MODEL_ID },
          statusCode: 429,
          responseHeaders: { "retry-after": "1" },
          responseBody: body(message, "rate_limit_exceeded", "rate_limit_exceeded"),
          isRetryable: true,
        });
      }
      const message =
        status >= 500
          ? `The server had an error while processing your request (simulated HTTP ${status} from the offline model).`
          : `Simulated HTTP ${status} from the offline model.`;
      return new APICallError({
        message,
        url: URL,
        requestBodyValues: { model: OFFLINE_MODEL_ID },
        statusCode: status,
        responseHeaders: {},
        responseBody: body(message, status >= 500 ? "server_error" : "invalid_request_error", null),
        isRetryable: status >= 500 || status === 408 || status === 409,
      });
    }
    case "overflow": {
      const message = `This model's maximum context length is 32000 tokens. However, your messages resulted in ${Math.max(32_001, tokens(promptChars(prompt)))} tokens. Please reduce the length of the messages. (simulated by the offline model)`;
      return new APICallError({
        message,
        url: URL,
        requestBodyValues: { model: OFFLINE_MODEL_ID },
        statusCode: 400,
        responseHeaders: {},
        responseBody: body(message, "invalid_request_error", "context_length_exceeded"),
        isRetryable: false,
      });
    }
    case "drop":
      return new ConnectionResetError();
    case "hang":
      return abortError();
  }
}

/** What a socket closed by the other side looks like in Node. */
export class ConnectionResetError extends Error {
  override name = "ConnectionResetError";
  readonly code = "ECONNRESET";
  constructor() {
    super("socket hang up (simulated dropped connection from the offline model)");
  }
}


function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}


/** Resolves when `signal` aborts; never without one (that is what a hang is). */
function waitForAbort(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) {
      resolve();
      return;
    }
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
