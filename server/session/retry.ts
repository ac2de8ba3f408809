import type { MessageError } from "./message";

/** Retry policy for provider errors. */

export const DEFAULT_MAX_ATTEMPTS = 8;
const BASE_DELAY = 2000;
const MAX_DELAY_WITHOUT_HEADERS = 30_000;
/**
 * The longest wait a provider's `retry-after` may ask for (10 minutes): a far-future date
 * would otherwise keep the turn waiting for days, or overflow `setTimeout` (over 2^31−1 ms
 * it fires at once). The member can stop the turn meanwhile.
 */
export const MAX_RETRY_DELAY = 600_000;

const TRANSIENT = /rate.?limit|too many requests|overloaded|capacity|temporarily unavailable|try again/i;

/** The message to show while retrying, or undefined when the error must not be retried. */
export function retryable(error: MessageError): string | undefined {
  if (error.name !== "APIError") return undefined;
  const status = error.statusCode;
  // A spent quota is not a rate limit: waiting will not bring it back.
  if (status === 429 && /insufficient_quota|exceeded your current quota/i.test(`${error.message} ${error.responseBody ?? ""}`)) return undefined;
  if (status === 429) return error.message || "rate limited";
  if (status !== undefined && status >= 500) return error.message || `server error ${status}`;
  if (status !== undefined && status >= 400) return undefined;
  if (error.isRetryable) return error.message || "temporary provider error";
  if (TRANSIENT.test(error.message) || TRANSIENT.test(error.responseBody ?? "")) return error.message;
  return undefined;
}

function header(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/**
 * Delay before attempt `attempt + 1`: `retry-after-ms`, else `retry-after` (seconds or an
 * HTTP date), each at most MAX_RETRY_DELAY; else 2 s × 2^(attempt−1) capped at 30 s.
 */
export function delay(attempt: number, error: MessageError, now = Date.now()): number {
  const asked = askedDelay(error, now);
  if (asked !== undefined) return Math.min(asked, MAX_RETRY_DELAY);
  return Math.min(BASE_DELAY * 2 ** (Math.max(1, attempt) - 1), MAX_DELAY_WITHOUT_HEADERS);
}

/** The wait the provider's headers ask for (ms), if they ask for one. */
function askedDelay(error: MessageError, now: number): number | undefined {
  const headers = error.name === "APIError" ? error.responseHeaders : undefined;
  const ms = header(headers, "retry-after-ms");
  if (ms !== undefined) {
    const value = Number.parseFloat(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const after = header(headers, "retry-after");
  if (after !== undefined) {
    const seconds = Number.parseFloat(after);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return undefined;
}


