import { describe, expect, it } from "vitest";
import { byProvider, describeModel, providerLabel } from "./models";

describe("how the picker describes models", () => {
  it("issue 35 (5): context and prices per million tokens, or 'price unknown' for a model nobody priced", () => {
    expect(describeModel({ limit: { context: 200_000, output: 64_000 }, cost: { input: 3, output: 15 } })).toBe("200K context · $3 / $15 per M");
    expect(describeModel({ limit: { context: 0, output: 0 }, cost: { input: 0, output: 0 }, priceUnknown: true })).toBe("context unknown · price unknown");
    expect(describeModel({ limit: { context: 32_000, output: 4_096 }, cost: { input: 0, output: 0 } })).toBe("32K context · free");
  });

  it("issue 35 (5): groups models by provider in the order they come", () => {
    const groups = byProvider([
      { providerId: "offline", modelId: "parley-offline" },
      { providerId: "anthropic", modelId: "a" },
      { providerId: "google", modelId: "g" },
      { providerId: "anthropic", modelId: "b" },
    ]);
    expect(groups.map((g) => [providerLabel(g.providerId), g.models.map((m) => m.modelId)])).toEqual([
      ["Built in", ["parley-offline"]],
      ["Anthropic", ["a", "b"]],
      ["Google", ["g"]],
    ]);
  });
});
