import { describe, expect, it } from "vitest";
import type { MessageError } from "./message";
import { DEFAULT_MAX_ATTEMPTS, MAX_RETRY_DELAY, delay, retryable } from "./retry";
import { sleep } from "../abort";

const api = (statusCode: number | undefined, extra: Partial<Extract<MessageError, { name: "APIError" }>> = {}): MessageError => ({
  name: "APIError",
  message: extra.message ?? `status ${statusCode ?? "none"}`,
  isRetryable: false,
  ...(statusCode !== undefined ? { statusCode } : {}),
  ...extra,
});

describe("retryable", () => {
  it("retries 429 and every 5xx", () => {
    expect(retryable(api(429))).toBeDefined();
    for (const status of [500, 502, 503, 504, 529]) expect(retryable(api(status))).toBeDefined();
  });

  it("never retries other 4xx, even marked retryable or with a transient message", () => {
    for (const status of [400, 401, 403, 404, 408, 409, 413, 422]) {
      expect(retryable(api(status, { isRetryable: true, message: "rate limit, try again" }))).toBeUndefined();
    }
  });

  it("retries an APIError marked retryable without a status (connection resets)", () => {
    expect(retryable(api(undefined, { isRetryable: true, message: "connection lost: ECONNRESET" }))).toBe("connection lost: ECONNRESET");
  });

  it("retries rate-limit and overload messages without a status", () => {
    expect(retryable(api(undefined, { message: "Rate limit exceeded" }))).toBeDefined();
    expect(retryable(api(undefined, { message: "Too Many Requests" }))).toBeDefined();
    expect(retryable(api(undefined, { message: "The server is overloaded" }))).toBeDefined();
    expect(retryable(api(undefined, { message: "bad", responseBody: '{"type":"overloaded_error"}' }))).toBeDefined();
    expect(retryable(api(undefined, { message: "invalid schema" }))).toBeUndefined();
  });

  it("never retries context overflow, auth, aborts or unknown errors", () => {
    expect(retryable({ name: "ContextOverflowError", message: "rate limit: context length exceeded" })).toBeUndefined();
    expect(retryable({ name: "AuthError", providerId: "openai", message: "too many requests" })).toBeUndefined();
    expect(retryable({ name: "AbortedError", message: "aborted" })).toBeUndefined();
    expect(retryable({ name: "UnknownError", message: "weird" })).toBeUndefined();
    expect(retryable({ name: "OutputLengthError" })).toBeUndefined();
  });

  it("the shown message is the error's message, with a fallback", () => {
    expect(retryable(api(429, { message: "Slow down" }))).toBe("Slow down");
    expect(retryable(api(429, { message: "" }))).toBe("rate limited");
    expect(retryable(api(503, { message: "" }))).toBe("server error 503");
  });

  it("caps attempts by default at 8", () => {
    expect(DEFAULT_MAX_ATTEMPTS).toBe(8);
  });
});

describe("delay", () => {
  const withHeaders = (headers: Record<string, string>) => api(429, { responseHeaders: headers });

  it("uses retry-after-ms first (any header case)", () => {
    expect(delay(1, withHeaders({ "retry-after-ms": "1500", "retry-after": "9" }))).toBe(1500);
    expect(delay(3, withHeaders({ "Retry-After-Ms": "12.2" }))).toBe(13);
  });

  it("then retry-after in seconds", () => {
    expect(delay(1, withHeaders({ "retry-after": "1" }))).toBe(1000);
    expect(delay(5, withHeaders({ "retry-after": "0.5" }))).toBe(500);
    // Headers are not capped at 30 s.
    expect(delay(1, withHeaders({ "retry-after": "120" }))).toBe(120_000);
  });

  it("then retry-after as an HTTP date", () => {
    const now = Date.parse("2026-11-21T12:00:00Z");
    expect(delay(1, withHeaders({ "retry-after": "Sat, 21 Nov 2026 12:00:05 GMT" }), now)).toBe(5000);
    // A date in the past means now.
    expect(delay(1, withHeaders({ "retry-after": "Sat, 21 Nov 2026 11:00:00 GMT" }), now)).toBe(0);
  });

  it("D8: a far-future retry-after date, or a huge retry-after(-ms), waits at most MAX_RETRY_DELAY (10 min), never past setTimeout's range", () => {
    const now = Date.parse("2026-11-21T12:00:00Z");
    expect(MAX_RETRY_DELAY).toBe(600_000);
    // 7,973 years away: over 2^31−1 ms, which setTimeout would fire at once.
    expect(delay(1, withHeaders({ "retry-after": "Fri, 31 Dec 9999 23:59:59 GMT" }), now)).toBe(MAX_RETRY_DELAY);
    expect(delay(1, withHeaders({ "retry-after": "Sat, 21 Nov 2026 12:30:00 GMT" }), now)).toBe(MAX_RETRY_DELAY);
    expect(delay(1, withHeaders({ "retry-after": "1e12" }), now)).toBe(MAX_RETRY_DELAY);
    expect(delay(1, withHeaders({ "retry-after-ms": "99999999999999" }), now)).toBe(MAX_RETRY_DELAY);
    // Below the cap a header still wins over the 30 s cap of the backoff.
    expect(delay(1, withHeaders({ "retry-after": "Sat, 21 Nov 2026 12:02:00 GMT" }), now)).toBe(120_000);
  });

  it("ignores unusable headers", () => {
    expect(delay(1, withHeaders({ "retry-after-ms": "soon", "retry-after": "later" }))).toBe(2000);
    expect(delay(2, withHeaders({ "retry-after-ms": "-5" }))).toBe(4000);
  });

  it("without headers: 2 s · 2^(attempt−1), capped at 30 s", () => {
    const plain = api(500);
    expect([1, 2, 3, 4, 5, 6, 10].map((n) => delay(n, plain))).toEqual([2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(delay(1, { name: "UnknownError", message: "x" })).toBe(2000);
  });
});

describe("sleep", () => {
  it("waits the time", async () => {
    const started = Date.now();
    await sleep(30, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it("rejects at once with an AbortError when aborted while waiting or before", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = sleep(60_000, controller.signal);
    setTimeout(() => controller.abort(), 10);
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(sleep(10, controller.signal)).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("sleep past setTimeout's range (D8)", () => {
  it("D8: a delay over 2^31−1 ms still waits (setTimeout alone would fire at once)", async () => {
    const controller = new AbortController();
    let settled = false;
    const waiting = sleep(8.64e15, controller.signal).then(
      () => (settled = true),
      () => undefined,
    );
    // Timers that overflow fire on the next turn of the event loop; this one must not.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    controller.abort();
    await waiting;
    expect(settled).toBe(false);
  });
});

describe("quota errors", () => {
  it("does not retry a 429 that reports a spent quota", async () => {
    const { retryable } = await import("./retry");
    expect(
      retryable({ name: "APIError", message: "You exceeded your current quota", statusCode: 429, isRetryable: true, responseBody: '{"error":{"code":"insufficient_quota"}}' }),
    ).toBeUndefined();
    expect(retryable({ name: "APIError", message: "Rate limit reached", statusCode: 429, isRetryable: true })).toBeDefined();
  });
});
