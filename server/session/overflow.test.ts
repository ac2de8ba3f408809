import { describe, expect, it } from "vitest";
import type { Tokens } from "./message";
import { OUTPUT_TOKEN_MAX, count, fillsWindow, isOverflow, outputReserve, usable } from "./overflow";

/** Overflow detection, rule by rule. */

const tokens = (input: number, output = 0, read = 0, write = 0, reasoning = 0): Tokens => ({ input, output, reasoning, cache: { read, write } });

describe("overflow", () => {
  const limit = { context: 100_000, output: 8_000 };

  it("is off when auto-compaction is off, whatever the usage", () => {
    expect(isOverflow({ tokens: tokens(1_000_000), limit, auto: false })).toBe(false);
  });

  it("is off for a model with an unknown (0) context limit", () => {
    expect(isOverflow({ tokens: tokens(1_000_000), limit: { context: 0, output: 0 }, auto: true })).toBe(false);
    expect(isOverflow({ tokens: tokens(1_000_000), limit: { context: 0, input: 50_000, output: 0 }, auto: true })).toBe(false);
  });

  it("usable = context − output limit; overflow at exactly usable, not one below", () => {
    expect(usable(limit)).toBe(92_000);
    expect(isOverflow({ tokens: tokens(91_999), limit, auto: true })).toBe(false);
    expect(isOverflow({ tokens: tokens(92_000), limit, auto: true })).toBe(true);
  });

  it("reserves at most 32,000 tokens for the answer, and 32,000 when the output limit is unknown", () => {
    expect(outputReserve({ context: 1_000_000, output: 100_000 })).toBe(OUTPUT_TOKEN_MAX);
    expect(usable({ context: 1_000_000, output: 100_000 })).toBe(968_000);
    expect(outputReserve({ context: 200_000, output: 0 })).toBe(32_000);
    expect(usable({ context: 200_000, output: 0 })).toBe(168_000);
    expect(outputReserve({ context: 200_000, output: 4_096 })).toBe(4_096);
  });

  it("uses the model's input limit when it has one", () => {
    const withInput = { context: 400_000, input: 272_000, output: 128_000 };
    expect(usable(withInput)).toBe(272_000);
    expect(isOverflow({ tokens: tokens(271_999), limit: withInput, auto: true })).toBe(false);
    expect(isOverflow({ tokens: tokens(272_000), limit: withInput, auto: true })).toBe(true);
  });

  it("counts input, output, cache reads and cache writes (not reasoning)", () => {
    expect(count(tokens(10, 20, 30, 40, 1000))).toBe(100);
    // 50,000 + 2,000 + 30,000 + 10,000 = 92,000 = usable
    expect(isOverflow({ tokens: tokens(50_000, 2_000, 30_000, 10_000), limit, auto: true })).toBe(true);
    expect(isOverflow({ tokens: tokens(50_000, 2_000, 30_000, 9_999, 50_000), limit, auto: true })).toBe(false);
  });

  it("a summary's request only fails when it reaches the whole window", () => {
    expect(fillsWindow(tokens(92_000), limit)).toBe(false);
    expect(fillsWindow(tokens(99_000, 500, 500), limit)).toBe(true);
    expect(fillsWindow(tokens(10_000_000), { context: 0, output: 0 })).toBe(false);
  });
});
