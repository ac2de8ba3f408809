import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type { ResolvedModel } from "../server/services";

/**
 * The small model of test engines: every title request is answered "Test title" at once,
 * so the background title generation of a prompt never reaches — and never shifts — the
 * scripted model a test drives the loop with.
 */
export const TEST_TITLE = "Test title";

export function titleModel(title = TEST_TITLE): ResolvedModel {
  const language = new MockLanguageModelV4({
    doStream: async () => ({
      stream: convertArrayToReadableStream([
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: title },
        { type: "text-end", id: "t" },
        {
          type: "finish",
          finishReason: { unified: "stop", raw: "stop" },
          usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: 0 } },
        },
      ]),
    }),
  });
  return { ref: { providerId: "test", modelId: "title" }, language, limit: { context: 100_000, output: 1_000 }, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
}
