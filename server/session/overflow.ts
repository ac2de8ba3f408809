import { type Limit, count, usable } from "../../lib/context-window";
import type { Tokens } from "./message";

/**
 * Overflow detection: does a step's usage mean the model's context is full?
 *
 * - off when `compaction.auto` is false or the model's context limit is 0 (unknown model);
 * - output reserve = min(output limit, 32,000), or 32,000 when the output limit is unknown (0);
 * - usable = the model's input limit when it has one, else context − reserve;
 * - overflow when input + output + cache read + cache write ≥ usable.
 *
 * The arithmetic lives in lib/context-window.ts so the browser's context meter uses the same rule.
 */

export { OUTPUT_TOKEN_MAX, type Limit, count, outputReserve, usable } from "../../lib/context-window";

export function isOverflow(input: { tokens: Tokens; limit: Limit; auto: boolean }): boolean {
  if (!input.auto) return false;
  if (input.limit.context <= 0) return false;
  return count(input.tokens) >= usable(input.limit);
}

/**
 * A compaction's own request did not fit: its usage reached the whole context window (a
 * server that truncates the prompt silently reports that much). Unlike `isOverflow`, the
 * summary step is not held to the usable limit — it is asked exactly when the history
 * has reached that limit, so its own request is always at least that large.
 */
export function fillsWindow(tokens: Tokens, limit: Limit): boolean {
  return limit.context > 0 && count(tokens) >= limit.context;
}
