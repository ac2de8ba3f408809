import Decimal from "decimal.js";
import { describe, expect, it } from "vitest";
import { addCost, addTokens, cost, costDecimal, tokens } from "./usage";

const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

describe("usage.tokens", () => {
  it("input excludes cache read and write; output excludes reasoning", () => {
    expect(
      tokens({
        inputTokens: 1000,
        outputTokens: 500,
        inputTokenDetails: { cacheReadTokens: 300, cacheWriteTokens: 100 },
        outputTokenDetails: { reasoningTokens: 200 },
      }),
    ).toEqual({ input: 600, output: 300, reasoning: 200, cache: { read: 300, write: 100 } });
  });

  it("missing details count as zero", () => {
    expect(tokens({ inputTokens: 42, outputTokens: 7 })).toEqual({ input: 42, output: 7, reasoning: 0, cache: { read: 0, write: 0 } });
    expect(tokens({ inputTokens: undefined, outputTokens: undefined })).toEqual({ input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } });
  });

  it("never goes negative or fractional on inconsistent provider numbers", () => {
    const t = tokens({ inputTokens: 10, outputTokens: 5, inputTokenDetails: { cacheReadTokens: 50 }, outputTokenDetails: { reasoningTokens: 9 } });
    expect(t).toEqual({ input: 0, output: 0, reasoning: 9, cache: { read: 50, write: 0 } });
    expect(tokens({ inputTokens: Number.NaN, outputTokens: -3 })).toEqual({ input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } });
    expect(tokens({ inputTokens: 10.6, outputTokens: 1.2 })).toMatchObject({ input: 11, output: 1 });
  });
});

describe("usage.cost", () => {
  it("prices every kind per million, reasoning at the output price, exactly", () => {
    const t = { input: 600, output: 300, reasoning: 200, cache: { read: 300, write: 100 } };
    // (600·3 + 300·15 + 200·15 + 300·0.3 + 100·3.75) / 1e6 = 9765 / 1e6
    expect(costDecimal(t, PRICES).toString()).toBe("0.009765");
    expect(cost(t, PRICES)).toBe(0.009765);
  });

  it("has no binary floating-point error", () => {
    // 0.1 + 0.2 in floats is 0.30000000000000004.
    const t = { input: 1_000_000, output: 1_000_000, reasoning: 0, cache: { read: 0, write: 0 } };
    expect(cost(t, { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0 })).toBe(0.3);
    expect(cost({ input: 7, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }, { input: 0.15, output: 0, cacheRead: 0, cacheWrite: 0 })).toBe(
      new Decimal("0.00000105").toNumber(),
    );
  });

  it("is zero for free models", () => {
    expect(cost({ input: 5, output: 5, reasoning: 5, cache: { read: 5, write: 5 } }, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 })).toBe(0);
  });

  it("addCost and addTokens sum exactly", () => {
    expect(addCost(0.1, 0.2)).toBe(0.3);
    let total = 0;
    for (let i = 0; i < 10; i++) total = addCost(total, 0.1);
    expect(total).toBe(1);
    expect(addTokens({ input: 1, output: 2, reasoning: 3, cache: { read: 4, write: 5 } }, { input: 10, output: 20, reasoning: 30, cache: { read: 40, write: 50 } })).toEqual({
      input: 11,
      output: 22,
      reasoning: 33,
      cache: { read: 44, write: 55 },
    });
  });
});
