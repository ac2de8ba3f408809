import Decimal from "decimal.js";
import type { Tokens } from "./message";

/**
 * Token usage and cost of one step: input excludes cached tokens, output
 * excludes reasoning, reasoning is billed at the output price; prices are USD per million
 * tokens; arithmetic is exact decimal.
 */

export interface Prices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Reasoning tokens, when a model prices them apart; else the output price. */
  reasoning?: number;
}

export interface RawUsage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  inputTokenDetails?: { cacheReadTokens?: number | undefined; cacheWriteTokens?: number | undefined };
  outputTokenDetails?: { reasoningTokens?: number | undefined };
}

const count = (n: number | undefined) => (n !== undefined && Number.isFinite(n) && n > 0 ? Math.round(n) : 0);

export function tokens(usage: RawUsage): Tokens {
  const cacheRead = count(usage.inputTokenDetails?.cacheReadTokens);
  const cacheWrite = count(usage.inputTokenDetails?.cacheWriteTokens);
  const reasoning = count(usage.outputTokenDetails?.reasoningTokens);
  return {
    input: Math.max(0, count(usage.inputTokens) - cacheRead - cacheWrite),
    output: Math.max(0, count(usage.outputTokens) - reasoning),
    reasoning,
    cache: { read: cacheRead, write: cacheWrite },
  };
}

const MILLION = new Decimal(1_000_000);

export function costDecimal(t: Tokens, prices: Prices): Decimal {
  return new Decimal(t.input)
    .mul(prices.input)
    .plus(new Decimal(t.output).mul(prices.output))
    .plus(new Decimal(t.reasoning).mul(prices.reasoning ?? prices.output))
    .plus(new Decimal(t.cache.read).mul(prices.cacheRead))
    .plus(new Decimal(t.cache.write).mul(prices.cacheWrite))
    .div(MILLION);
}

export function cost(t: Tokens, prices: Prices): number {
  return costDecimal(t, prices).toNumber();
}

export function addTokens(a: Tokens, b: Tokens): Tokens {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    cache: { read: a.cache.read + b.cache.read, write: a.cache.write + b.cache.write },
  };
}

/** Exact sum of two costs given as numbers (message totals). */
export function addCost(a: number, b: number): number {
  return new Decimal(a).plus(b).toNumber();
}
