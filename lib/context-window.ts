/**
 * The context-window arithmetic, shared by the server (overflow detection,
 * server/session/overflow.ts) and the browser (the session's context meter). Pure: no
 * imports, so client components may import it at run time.
 *
 * - output reserve = min(output limit, 32,000), or 32,000 when the output limit is unknown (0);
 * - usable = the model's input limit when it has one, else context − reserve;
 * - tokens in the context = input + output + cache read + cache write.
 */

export const OUTPUT_TOKEN_MAX = 32_000;

export interface Limit {
  /** Context window in tokens; 0 = unknown. */
  context: number;
  input?: number;
  /** Maximum output tokens; 0 = unknown. */
  output: number;
}

export interface TokenUsage {
  input: number;
  output: number;
  cache: { read: number; write: number };
}

/** Tokens kept free for the model's answer. */
export function outputReserve(limit: Limit): number {
  return limit.output > 0 ? Math.min(limit.output, OUTPUT_TOKEN_MAX) : OUTPUT_TOKEN_MAX;
}

/** Tokens the conversation may use before it must be compacted. */
export function usable(limit: Limit): number {
  return limit.input !== undefined && limit.input > 0 ? limit.input : limit.context - outputReserve(limit);
}

/** The tokens a step's usage puts in the context. */
export function count(tokens: TokenUsage): number {
  return tokens.input + tokens.output + tokens.cache.read + tokens.cache.write;
}
