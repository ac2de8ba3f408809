import { describe, expect, it } from "vitest";
import type { Part } from "../server/session/message";
import { type RetryPart, groupRetries, retryOutcome } from "./retry-parts";

const base = (n: number) => ({ id: `prt_${n}`, sessionId: "ses_1", messageId: "msg_1" });
const retry = (n: number, attempt: number): RetryPart => ({
  ...base(n),
  type: "retry",
  attempt,
  max: 8,
  error: { name: "APIError", message: `rate limited ${attempt}`, statusCode: 429, isRetryable: true },
  time: { created: n, next: n + 1000 },
});
const text = (n: number): Part => ({ ...base(n), type: "text", text: `t${n}`, time: { start: n, end: n } });

describe("groupRetries", () => {
  it("leaves parts without retries as they are", () => {
    const parts = [text(1), text(2)];
    expect(groupRetries(parts)).toEqual(parts.map((part) => ({ kind: "part", part })));
  });

  it("gathers every retry of a message into one item where the first was, oldest attempt first", () => {
    const parts = [text(1), retry(2, 1), retry(3, 2), text(4), retry(5, 3), text(6)];
    const items = groupRetries(parts);
    expect(items.map((item) => (item.kind === "part" ? item.part.id : `retries:${item.retries.map((r) => r.attempt).join(",")}`))).toEqual([
      "prt_1",
      "retries:1,2,3",
      "prt_4",
      "prt_6",
    ]);
    expect(items[1]).toMatchObject({ kind: "retries", key: "prt_2" });
  });

  it("makes one item of seven retries", () => {
    const parts = Array.from({ length: 7 }, (_, i) => retry(i + 1, i + 1));
    expect(groupRetries(parts)).toHaveLength(1);
  });
});

describe("retryOutcome", () => {
  it("tells a running reply, one that went through, one that failed and one that was stopped apart", () => {
    expect(retryOutcome({ time: {} })).toBe("retrying");
    expect(retryOutcome({ time: { completed: 5 } })).toBe("recovered");
    expect(retryOutcome({ time: { completed: 5 }, error: { name: "APIError" } })).toBe("failed");
    expect(retryOutcome({ time: { completed: 5 }, error: { name: "AbortedError" } })).toBe("stopped");
    expect(retryOutcome(undefined)).toBe("retrying");
  });
});
