import { ParleyError, isParleyError } from "../errors";

/**
 * What a provider may send: its output is untrusted input (any member may pick
 * `compatible/<any model>`, and the server at OPENAI_BASE_URL may be broken or hostile).
 * Over a limit, the step fails with a `ProviderLimitError` naming the limit and its
 * configuration key; the turn ends with that error and the session goes idle. These
 * errors are not retried: a provider that broke a limit once is not asked again.
 *
 * The byte limits are checked where the answer is read: by the SSE reader both providers
 * share (compatible/sse-reader.ts; chat-stream.ts for `compatible`, merge-deltas.ts for
 * `openai`); the part size and the step's clocks where every model's
 * stream is read (server/session/llm.ts).
 */
export interface ProviderLimits {
  /** The longest SSE event (or unfinished line) the parser holds, in characters. */
  maxEventChars: number;
  /** Bytes a `compatible` answer may send before its first output (text, reasoning, a tool call, a finish). */
  maxBytesBeforeOutput: number;
  /** Bytes of one answer (after any decompression). */
  maxAnswerBytes: number;
  /** Characters of one text or reasoning part, or of one tool call's input. */
  maxPartChars: number;
  /** Wall-clock time of one model call (a step's answer; not the tools it then runs), ms. */
  stepTimeoutMs: number;
  /** Longest time without a stream part (SSE comments such as `: keepalive` are not one), ms. */
  idleTimeoutMs: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_PROVIDER_LIMITS: ProviderLimits = {
  maxEventChars: 4 * MiB,
  maxBytesBeforeOutput: 8 * MiB,
  maxAnswerBytes: 64 * MiB,
  maxPartChars: 4 * MiB,
  stepTimeoutMs: 10 * 60_000,
  idleTimeoutMs: 5 * 60_000,
};

/** Each limit's configuration key (in the `provider` section of parley.config.json). */
export const LIMIT_KEYS: Record<keyof ProviderLimits, string> = {
  maxEventChars: "provider.maxEventChars",
  maxBytesBeforeOutput: "provider.maxBytesBeforeOutput",
  maxAnswerBytes: "provider.maxAnswerBytes",
  maxPartChars: "provider.maxPartChars",
  stepTimeoutMs: "provider.stepTimeoutMs",
  idleTimeoutMs: "provider.idleTimeoutMs",
};

/** Why a provider's answer was refused: a limit it broke, a redirect or an encoding it may not use. */
export type ProviderRefusal = keyof ProviderLimits | "redirect" | "encoding";

/** A provider's answer refused (see above). Not retryable. */
export class ProviderLimitError extends ParleyError {
  override name = "ProviderLimitError";
  constructor(
    readonly refusal: ProviderRefusal,
    message: string,
  ) {
    super("INVALID", message, { details: { refusal } });
  }

  /** `limit` broken: "<what> (<config key>: <value>); the answer was stopped". */
  static over(limit: keyof ProviderLimits, what: string, value: number): ProviderLimitError {
    return new ProviderLimitError(limit, `The model's provider ${what} (${LIMIT_KEYS[limit]}: ${value}); the answer was stopped`);
  }
}

/** Also across the copies of this module Next.js bundles: a ParleyError (branded, see server/errors.ts) of this class's name. */
export function isProviderLimitError(error: unknown): error is ProviderLimitError {
  return error instanceof ProviderLimitError || (isParleyError(error) && error.name === "ProviderLimitError");
}

/** A duration for a message: "90 s", "1.5 s", "250 ms". */
export function seconds(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}
