import { describe, expect, it } from "vitest";
import { CATALOG, ModelOverrides, isKnownModel, parseModelRef, resolveModel } from "./models";

describe("model catalog", () => {
  it("knows the offline model: 32k context, 4k output, free", () => {
    expect(resolveModel("offline/parley-offline")).toEqual({
      providerId: "offline",
      modelId: "parley-offline",
      name: "Offline model (built in, no network)",
      limit: { context: 32_000, output: 4_096 },
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      tools: true,
      reasoning: true,
      images: false,
    });
  });

  it("has limits and per-million prices for the common OpenAI models", () => {
    for (const id of ["gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini", "o4-mini", "gpt-5", "gpt-5-mini"]) {
      const model = resolveModel({ providerId: "openai", modelId: id });
      expect(isKnownModel(`openai/${id}`), id).toBe(true);
      expect(model.limit.context, id).toBeGreaterThan(100_000);
      expect(model.limit.output, id).toBeGreaterThan(10_000);
      expect(model.cost.input, id).toBeGreaterThan(0);
      expect(model.cost.output, id).toBeGreaterThan(model.cost.input);
      expect(model.cost.cacheRead, id).toBeLessThan(model.cost.input);
      expect(model.tools).toBe(true);
      expect(model.images, id).toBe(true);
    }
    expect(resolveModel("openai/gpt-4.1-mini")).toMatchObject({
      limit: { context: 1_047_576, output: 32_768 },
      cost: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 },
      reasoning: false,
    });
    expect(resolveModel("openai/gpt-5")).toMatchObject({ limit: { context: 400_000, input: 272_000, output: 128_000 }, reasoning: true });
    expect(new Set(CATALOG.map((m) => `${m.providerId}/${m.modelId}`)).size).toBe(CATALOG.length);
  });

  it("prices dated snapshots like their family", () => {
    const snapshot = resolveModel("openai/gpt-4o-2024-08-06");
    expect(snapshot).toMatchObject({ modelId: "gpt-4o-2024-08-06", cost: resolveModel("openai/gpt-4o").cost });
    expect(snapshot.name).toBe("GPT-4o (2024-08-06)");
  });

  it("lets an unknown model work with limits 0 and cost 0, marked price unknown", () => {
    expect(isKnownModel("compatible/llama3.1")).toBe(false);
    expect(resolveModel("compatible/llama3.1")).toEqual({
      providerId: "compatible",
      modelId: "llama3.1",
      name: "llama3.1",
      limit: { context: 0, output: 0 },
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      tools: true,
      reasoning: false,
      images: false,
      priceUnknown: true,
    });
    // Prices from an override make it known.
    expect(resolveModel("compatible/llama3.1", { "compatible/llama3.1": { cost: { input: 1 } } }).priceUnknown).toBeUndefined();
  });

  it("applies config overrides field by field", () => {
    const overrides = ModelOverrides.parse({
      "openai/gpt-4o": { cost: { input: 2 }, limit: { output: 4096 } },
      "compatible/llama3.1": { name: "Llama 3.1 (local)", limit: { context: 131_072, output: 8192 }, cost: { input: 0.1, output: 0.2 } },
      "compatible/llava": { images: true },
      "openai/gpt-4.1": { images: false },
    });
    expect(resolveModel("openai/gpt-4o", overrides)).toMatchObject({
      name: "GPT-4o",
      limit: { context: 128_000, output: 4096 },
      cost: { input: 2, output: 10, cacheRead: 1.25, cacheWrite: 0 },
    });
    expect(resolveModel("compatible/llama3.1", overrides)).toMatchObject({
      name: "Llama 3.1 (local)",
      limit: { context: 131_072, output: 8192 },
      cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0 },
    });
    expect(resolveModel("compatible/llama3.1", overrides).images).toBe(false);
    expect(resolveModel("compatible/llava", overrides).images).toBe(true);
    expect(resolveModel("openai/gpt-4.1", overrides).images).toBe(false);
    // Other models are untouched.
    expect(resolveModel("openai/gpt-4o-mini", overrides).cost.input).toBe(0.15);
  });

  it("hands out copies: changing a result does not change the catalog", () => {
    const model = resolveModel("openai/gpt-4.1");
    model.cost.input = 999;
    model.limit.context = 1;
    expect(resolveModel("openai/gpt-4.1")).toMatchObject({ cost: { input: 2 }, limit: { context: 1_047_576 } });
  });

  it("validates overrides", () => {
    expect(ModelOverrides.safeParse({ "gpt-4o": {} }).success).toBe(false);
    expect(ModelOverrides.safeParse({ "openai/gpt-4o": { cost: { input: -1 } } }).success).toBe(false);
    expect(ModelOverrides.safeParse({ "openai/gpt-4o": { limit: { context: 1.5 } } }).success).toBe(false);
    expect(ModelOverrides.safeParse({ "openai/gpt-4o": { price: 1 } }).success).toBe(false);
    expect(ModelOverrides.safeParse({ "openai/gpt-4o": { name: "Mine" } }).success).toBe(true);
    expect(ModelOverrides.safeParse({ "openai/gpt-4o": { images: "yes" } }).success).toBe(false);
  });

  it('parses "provider/model" refs, keeping slashes in the model id', () => {
    expect(parseModelRef("compatible/meta-llama/Llama-3.1-8B")).toEqual({ providerId: "compatible", modelId: "meta-llama/Llama-3.1-8B" });
    expect(() => parseModelRef("gpt-4o")).toThrow(/provider\/model/);
  });
});
