import { describe, expect, it } from "vitest";
import type { WithParts } from "@/components/chat/types";
import { contextUsage, tokensInUse } from "./context-usage";

const S = "ses_fffffffffff0aaaaaaaaaaaaaa";
const mid = (n: number) => `msg_${n.toString(16).padStart(12, "0")}aaaaaaaaaaaaaa`;
const user = (n: number): WithParts => ({
  info: { id: mid(n), sessionId: S, role: "user", time: { created: n }, agent: "build", model: { providerId: "offline", modelId: "parley-offline" } },
  parts: [],
});
function assistant(n: number, tokens: [input: number, output: number, read: number, write: number, reasoning?: number], extra: { finished?: boolean; summary?: boolean; error?: boolean } = {}): WithParts {
  const [input, output, read, write, reasoning = 0] = tokens;
  return {
    info: {
      id: mid(n),
      sessionId: S,
      role: "assistant",
      parentId: mid(n - 1),
      providerId: "offline",
      modelId: "parley-offline",
      agent: "build",
      path: { cwd: "/", root: "/" },
      cost: 0,
      tokens: { input, output, reasoning, cache: { read, write } },
      ...(extra.finished === false ? {} : { finish: "stop" }),
      ...(extra.summary ? { summary: true } : {}),
      ...(extra.error ? { error: { name: "UnknownError" as const, message: "x" } } : {}),
      time: { created: n, ...(extra.finished === false ? {} : { completed: n + 1 }) },
    },
    parts: [],
  };
}

describe("context usage", () => {
  it("counts input + output + cache read + cache write of the last finished step (not reasoning)", () => {
    expect(tokensInUse([user(1), assistant(2, [1000, 200, 300, 50, 999])])).toBe(1550);
  });

  it("ignores a step still streaming and a failed one, and is unknown before any step finished", () => {
    const messages = [user(1), assistant(2, [1000, 0, 0, 0]), user(3), assistant(4, [5000, 0, 0, 0], { error: true }), user(5), assistant(6, [9000, 0, 0, 0], { finished: false })];
    expect(tokensInUse(messages)).toBe(1000);
    expect(tokensInUse([user(1)])).toBeUndefined();
  });

  it("a step that completed without a finish reason (written by another writer) counts too", () => {
    const done = assistant(2, [800, 0, 0, 0]);
    if (done.info.role === "assistant") delete done.info.finish;
    expect(tokensInUse([user(1), done])).toBe(800);
  });

  it("after a compaction, counts what the summary left: its output", () => {
    expect(tokensInUse([user(1), assistant(2, [27_000, 10, 0, 0]), user(3), assistant(4, [27_100, 700, 0, 0], { summary: true })])).toBe(700);
  });

  it("measures against the usable context by the server's rule: context − min(output, 32k), or the input limit", () => {
    const messages = [user(1), assistant(2, [13_952, 0, 0, 0])];
    // The offline model: 32,000 context, 4,096 output → 27,904 usable.
    expect(contextUsage(messages, { context: 32_000, output: 4_096 })).toEqual({ used: 13_952, usable: 27_904, ratio: 0.5 });
    expect(contextUsage(messages, { context: 1_000_000, output: 100_000 }).usable).toBe(968_000);
    expect(contextUsage(messages, { context: 400_000, input: 272_000, output: 128_000 }).usable).toBe(272_000);
    expect(contextUsage(messages, { context: 0, output: 0 })).toEqual({ used: 13_952, usable: undefined, ratio: undefined });
    expect(contextUsage(messages, undefined).usable).toBeUndefined();
  });
});
