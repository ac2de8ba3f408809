import { describe, expect, it } from "vitest";
import type { AssistantMessage, Status, UserMessage, WithParts } from "./types";
import { isSendKey, requestErrorMessage } from "./composer";
import { describeError } from "./message-error";
import { chooseModel, modelKey, parseModelKey } from "./model-picker";
import { queuedMessageIds } from "./queued";
import { secondsUntil } from "@/components/parts/retry-card";
import { pickStatus } from "./session-status";

const S = "ses_fffffffffff0aaaaaaaaaaaaaa";
const id = (n: number) => `msg_${n.toString(16).padStart(12, "0")}00000000000000`;
const tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };

function user(n: number): WithParts {
  const info: UserMessage = { id: id(n), sessionId: S, role: "user", time: { created: n }, agent: "build", model: { providerId: "offline", modelId: "parley-offline" } };
  return { info, parts: [] };
}
function assistant(n: number, parent: number, extra: Partial<AssistantMessage> = {}): WithParts {
  const info: AssistantMessage = {
    id: id(n),
    sessionId: S,
    role: "assistant",
    parentId: id(parent),
    providerId: "offline",
    modelId: "parley-offline",
    agent: "build",
    path: { cwd: "/p", root: "/p" },
    cost: 0,
    tokens,
    time: { created: n },
    ...extra,
  };
  return { info, parts: [] };
}
const busy: Status = { type: "busy" };
const idle: Status = { type: "idle" };

describe("queuedMessageIds", () => {
  it("marks messages sent after the reply that is still being written", () => {
    const messages = [user(1), assistant(2, 1), user(3), user(4)];
    expect([...queuedMessageIds(messages, busy)]).toEqual([id(3), id(4)]);
    expect([...queuedMessageIds(messages, { type: "retry", attempt: 1, message: "429", next: 0 })]).toEqual([id(3), id(4)]);
  });

  it("keeps them queued between the steps of the running reply", () => {
    const messages = [user(1), assistant(2, 1, { finish: "tool-calls", time: { created: 2, completed: 3 } }), user(4)];
    expect([...queuedMessageIds(messages, busy)]).toEqual([id(4)]);
  });

  it("queues nothing when idle, when nothing is being answered, or once the reply answering them exists", () => {
    expect(queuedMessageIds([user(1), assistant(2, 1), user(3)], idle).size).toBe(0);
    expect(queuedMessageIds([user(1)], busy).size).toBe(0);
    expect(queuedMessageIds([user(1), assistant(2, 1, { finish: "stop", time: { created: 2, completed: 3 } }), user(4)], busy).size).toBe(0);
    expect(queuedMessageIds([user(1), assistant(2, 1, { error: { name: "AbortedError", message: "x" } }), user(3)], busy).size).toBe(0);
    expect(queuedMessageIds([user(1), assistant(2, 1), user(3), assistant(4, 3)], busy).size).toBe(0);
  });
});

describe("pickStatus", () => {
  const retry: Status = { type: "retry", attempt: 2, message: "rate limited", next: 10 };
  it("shows whichever source changed last, the live event when both did", () => {
    const start = { stored: idle, live: undefined, current: idle };
    expect(pickStatus(start, { stored: idle, live: busy })).toBe(busy);
    expect(pickStatus({ stored: idle, live: busy, current: busy }, { stored: retry, live: busy })).toBe(retry);
    expect(pickStatus({ stored: idle, live: busy, current: busy }, { stored: retry, live: idle })).toBe(idle);
  });
  it("keeps the live status when the stored one did not change", () => {
    expect(pickStatus({ stored: busy, live: idle, current: idle }, { stored: busy, live: idle })).toBe(idle);
    expect(pickStatus({ stored: busy, live: idle, current: idle }, { stored: undefined, live: idle })).toBe(idle);
  });
});

describe("secondsUntil", () => {
  it("rounds up and stops at zero", () => {
    expect(secondsUntil(10_000, 8_001)).toBe(2);
    expect(secondsUntil(10_000, 9_000)).toBe(1);
    expect(secondsUntil(10_000, 10_000)).toBe(0);
    expect(secondsUntil(10_000, 12_000)).toBe(0);
  });
});

describe("model choice", () => {
  const offline = { providerId: "offline", modelId: "parley-offline" };
  const mini = { providerId: "openai", modelId: "gpt-4.1-mini" };
  const llama = { providerId: "compatible", modelId: "meta/llama-3" };
  it("prefers the picked model, then the last used, then the session's, then the default — if still offered", () => {
    const models = [offline, mini];
    expect(chooseModel({ models, fallback: offline, picked: mini, lastUsed: offline })).toBe(mini);
    expect(chooseModel({ models, fallback: offline, lastUsed: mini })).toBe(mini);
    expect(chooseModel({ models, fallback: offline, session: mini })).toBe(mini);
    expect(chooseModel({ models, fallback: offline, picked: llama, lastUsed: llama })).toBe(offline);
  });
  it("round-trips keys whose model id holds a slash", () => {
    expect(parseModelKey(modelKey(llama))).toEqual(llama);
    expect(parseModelKey("nope")).toBeUndefined();
    expect(parseModelKey("/x")).toBeUndefined();
  });
});

describe("composer", () => {
  const key = (k: string, shiftKey = false, isComposing = false) => ({ key: k, shiftKey, altKey: false, nativeEvent: { isComposing } as KeyboardEvent });
  it("sends on Enter, not on Shift+Enter or while composing", () => {
    expect(isSendKey(key("Enter"))).toBe(true);
    expect(isSendKey(key("Enter", true))).toBe(false);
    expect(isSendKey(key("Enter", false, true))).toBe(false);
    expect(isSendKey(key("a"))).toBe(false);
  });
  it("explains a rejected input by its validation messages", () => {
    expect(requestErrorMessage({ message: "[{…}]", data: { issues: [{ message: "a message is limited to 100000 characters" }] } })).toBe(
      "a message is limited to 100000 characters",
    );
    expect(requestErrorMessage({ message: "internal error", data: { issues: undefined } })).toBe("internal error");
  });
});

describe("describeError", () => {
  it("tells a user's stop from a server interruption", () => {
    expect(describeError({ name: "AbortedError", message: "Aborted by the user" })).toMatchObject({ kind: "aborted", title: "Stopped" });
    expect(describeError({ name: "AbortedError", message: "Interrupted: the server stopped while this reply was being written." })).toMatchObject({
      kind: "interrupted",
      title: "Interrupted",
    });
  });
  it("names API errors with their status and context overflows with a way out", () => {
    expect(describeError({ name: "APIError", message: "Rate limit", statusCode: 429, isRetryable: true }).title).toBe("Provider API error (HTTP 429)");
    expect(describeError({ name: "ContextOverflowError", message: "Too long." }).detail).toContain("Compact the conversation");
  });
});
