import { APICallError, LoadAPIKeyError } from "@ai-sdk/provider";
import { StreamProviderError } from "ai";
import type { MessageError } from "./message";

/**
 * One function that turns anything thrown during a model call into the stored error
 * shapes of message.ts.
 */

const OVERFLOW = [
  /context[_ ]length/i,
  /maximum context/i,
  /context window/i,
  /too many tokens/i,
  /prompt is too long/i,
  /exceeds? the (model'?s? )?(context|token) limit/i,
  /input is too long/i,
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
  /exceeds the maximum number of tokens/i,
];
/** A refused key in the words of providers that do not answer 401 for it (Gemini answers 400 "API key not valid"). */
const BAD_KEY = /API key not valid|API_KEY_INVALID|invalid x-api-key/i;
/** Messages of temporary provider trouble, whatever shape the error has. */
const TRANSIENT = /rate.?limit|too many requests|overloaded/i;
const CONNECTION = /ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|socket hang up|other side closed|fetch failed|terminated|network error/i;

function isAbort(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const name = (error as { name?: unknown }).name;
  return name === "AbortError" || name === "ResponseAborted";
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    // JSON.stringify answers undefined for undefined, functions and symbols.
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

export function classify(error: unknown, providerId: string): MessageError {
  if (isAbort(error)) return { name: "AbortedError", message: messageOf(error) || "aborted" };
  if (LoadAPIKeyError.isInstance(error)) return { name: "AuthError", providerId, message: error.message };
  if (APICallError.isInstance(error)) {
    const body = error.responseBody;
    const text = `${error.message} ${body ?? ""}`;
    if (OVERFLOW.some((re) => re.test(text))) {
      return { name: "ContextOverflowError", message: error.message, responseBody: body };
    }
    if (error.statusCode === 401 || error.statusCode === 403 || BAD_KEY.test(text)) {
      return { name: "AuthError", providerId, message: error.message };
    }
    return {
      name: "APIError",
      message: error.message,
      statusCode: error.statusCode,
      isRetryable: error.isRetryable,
      responseHeaders: error.responseHeaders,
      responseBody: body,
    };
  }
  if (StreamProviderError.isInstance(error)) {
    // An error the provider sent inside a stream that had already started.
    const body = error.data === undefined ? undefined : safeJson(error.data);
    const text = `${error.message} ${error.type ?? ""} ${String(error.code ?? "")}`;
    if (OVERFLOW.some((re) => re.test(text))) return { name: "ContextOverflowError", message: error.message, responseBody: body };
    if (error.statusCode === 401 || error.statusCode === 403) return { name: "AuthError", providerId, message: error.message };
    return {
      name: "APIError",
      message: error.message,
      statusCode: error.statusCode,
      isRetryable: error.isRetryable,
      ...(body !== undefined ? { responseBody: body } : {}),
    };
  }
  const message = messageOf(error);
  if (OVERFLOW.some((re) => re.test(message))) return { name: "ContextOverflowError", message };
  if (TRANSIENT.test(message)) return { name: "APIError", message, isRetryable: true };
  const code = errorCode(error);
  if ((code && CONNECTION.test(code)) || CONNECTION.test(message)) {
    return { name: "APIError", message: `connection lost: ${message}`, isRetryable: true };
  }
  return { name: "UnknownError", message };
}
