import type { ModelInfo, ModelLimit } from "./model-info";

/**
 * The Anthropic and Google models of the bundled catalog: limits and USD list prices per
 * million tokens as the vendors publish them (standard tier, prompts under 200k tokens).
 * The operator updates or extends the catalog from a file (`catalog` in the configuration,
 * server/provider/catalog-file.ts) without a release.
 */

function anthropic(modelId: string, name: string, limit: ModelLimit, price: [input: number, output: number], reasoning: boolean): ModelInfo {
  const [input, output] = price;
  return {
    providerId: "anthropic",
    modelId,
    name,
    limit,
    // Anthropic's cache: a read costs a tenth of the input price, a (5-minute) write 1.25 times it.
    cost: { input, output, cacheRead: input / 10, cacheWrite: input * 1.25 },
    tools: true,
    reasoning,
    images: true,
  };
}

function google(modelId: string, name: string, price: [input: number, output: number, cacheRead: number], reasoning: boolean): ModelInfo {
  return {
    providerId: "google",
    modelId,
    name,
    limit: { context: 1_048_576, output: 65_536 },
    // Gemini bills cached content by storage time, not per token written.
    cost: { input: price[0], output: price[1], cacheRead: price[2], cacheWrite: 0 },
    tools: true,
    reasoning,
    images: true,
  };
}

export const VENDOR_CATALOG: readonly ModelInfo[] = [
  anthropic("claude-opus-4-5", "Claude Opus 4.5", { context: 200_000, output: 64_000 }, [5, 25], true),
  anthropic("claude-opus-4-1", "Claude Opus 4.1", { context: 200_000, output: 32_000 }, [15, 75], true),
  anthropic("claude-sonnet-4-5", "Claude Sonnet 4.5", { context: 200_000, output: 64_000 }, [3, 15], true),
  anthropic("claude-sonnet-4-0", "Claude Sonnet 4", { context: 200_000, output: 64_000 }, [3, 15], true),
  anthropic("claude-haiku-4-5", "Claude Haiku 4.5", { context: 200_000, output: 64_000 }, [1, 5], true),
  anthropic("claude-3-5-haiku-latest", "Claude Haiku 3.5", { context: 200_000, output: 8_192 }, [0.8, 4], false),
  google("gemini-2.5-pro", "Gemini 2.5 Pro", [1.25, 10, 0.125], true),
  google("gemini-2.5-flash", "Gemini 2.5 Flash", [0.3, 2.5, 0.03], true),
  google("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", [0.1, 0.4, 0.01], true),
];
