import { APICallError, LoadAPIKeyError } from "@ai-sdk/provider";
import { StreamProviderError } from "ai";
import { describe, expect, it } from "vitest";
import { classify } from "./classify";
import { retryable } from "./retry";

const call = (statusCode: number | undefined, message: string, extra: Partial<ConstructorParameters<typeof APICallError>[0]> = {}) =>
  new APICallError({ message, url: "https://api.test/v1/chat/completions", requestBodyValues: {}, statusCode, ...extra });

describe("classify", () => {
  it("aborts become AbortedError", () => {
    expect(classify(new DOMException("stop", "AbortError"), "openai")).toEqual({ name: "AbortedError", message: "stop" });
    const e = new Error("x");
    e.name = "AbortError";
    expect(classify(e, "openai").name).toBe("AbortedError");
  });

  it("a missing key and 401/403 become AuthError with the provider", () => {
    expect(classify(new LoadAPIKeyError({ message: "no key" }), "openai")).toEqual({ name: "AuthError", providerId: "openai", message: "no key" });
    expect(classify(call(401, "bad key"), "anthropic")).toEqual({ name: "AuthError", providerId: "anthropic", message: "bad key" });
    expect(classify(call(403, "forbidden"), "openai").name).toBe("AuthError");
  });

  it("an APICallError keeps status, retryability, headers and body", () => {
    const error = call(429, "Rate limit", { isRetryable: true, responseHeaders: { "retry-after": "1" }, responseBody: '{"error":{}}' });
    expect(classify(error, "openai")).toEqual({
      name: "APIError",
      message: "Rate limit",
      statusCode: 429,
      isRetryable: true,
      responseHeaders: { "retry-after": "1" },
      responseBody: '{"error":{}}',
    });
    expect(classify(call(400, "bad request"), "openai")).toMatchObject({ name: "APIError", statusCode: 400, isRetryable: false });
  });

  it("context-length errors become ContextOverflowError, by message or body", () => {
    expect(classify(call(400, "This model's maximum context length is 8192 tokens"), "openai").name).toBe("ContextOverflowError");
    expect(classify(call(400, "Bad Request", { responseBody: '{"error":{"code":"context_length_exceeded"}}' }), "openai")).toMatchObject({
      name: "ContextOverflowError",
      responseBody: '{"error":{"code":"context_length_exceeded"}}',
    });
    expect(classify(call(413, "prompt is too long: 210000 tokens > 200000 maximum"), "anthropic").name).toBe("ContextOverflowError");
    expect(classify(new Error("input exceeds the context window of this model"), "x").name).toBe("ContextOverflowError");
  });

  it("connection resets become retryable APIErrors, by code (also in the cause) or message", () => {
    const reset = Object.assign(new Error("read failed"), { code: "ECONNRESET" });
    expect(classify(reset, "openai")).toMatchObject({ name: "APIError", isRetryable: true });
    const undici = new TypeError("terminated", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
    const classified = classify(undici, "openai");
    expect(classified).toMatchObject({ name: "APIError", isRetryable: true });
    expect(retryable(classified)).toBeDefined();
    expect(classify(new Error("socket hang up"), "openai").name).toBe("APIError");
  });

  it("an error the provider sent inside a started stream keeps its status and retryability", () => {
    const overloaded = new StreamProviderError({ message: "The server is overloaded", type: "server_error", statusCode: 500, isRetryable: true, data: { message: "x" } });
    const classified = classify(overloaded, "openai");
    expect(classified).toMatchObject({ name: "APIError", message: "The server is overloaded", statusCode: 500, isRetryable: true, responseBody: '{"message":"x"}' });
    expect(retryable(classified)).toBeDefined();
    const invalid = new StreamProviderError({ message: "Invalid tool schema", type: "invalid_request_error", statusCode: 400, isRetryable: false });
    expect(retryable(classify(invalid, "openai"))).toBeUndefined();
    expect(classify(new StreamProviderError({ message: "Incorrect API key", statusCode: 401 }), "openai").name).toBe("AuthError");
    expect(classify(new StreamProviderError({ message: "too long", code: "context_length_exceeded", statusCode: 400 }), "openai").name).toBe("ContextOverflowError");
  });

  it("rate-limit and overload messages on other errors are retryable APIErrors", () => {
    const classified = classify(new Error("Overloaded"), "anthropic");
    expect(classified).toEqual({ name: "APIError", message: "Overloaded", isRetryable: true });
    expect(retryable(classified)).toBe("Overloaded");
    expect(classify({ type: "error", error: { type: "rate_limit_error", message: "Rate limited" } }, "x").name).toBe("APIError");
  });

  it("anything else is an UnknownError with a readable message", () => {
    expect(classify(new Error("weird"), "openai")).toEqual({ name: "UnknownError", message: "weird" });
    expect(classify("a string", "openai")).toEqual({ name: "UnknownError", message: "a string" });
    expect(classify({ some: "object" }, "openai")).toEqual({ name: "UnknownError", message: '{"some":"object"}' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(classify(cyclic, "openai").name).toBe("UnknownError");
    expect(classify(cyclic, "openai").message).toEqual(expect.any(String));
    expect(classify(undefined, "openai")).toEqual({ name: "UnknownError", message: "undefined" });
  });
});
