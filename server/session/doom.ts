/**
 * Doom-loop detection. Before a tool call runs, look at the calls of the
 * current turn: when the last three are this same tool with identical input, or the
 * last calls repeat a short cycle (A, B, A, B, A, B) three times and this call continues
 * it, the user is asked (`doom_loop`) before it runs.
 */

export interface Call {
  tool: string;
  input: unknown;
}

/** JSON with object keys sorted, so inputs compare by value. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const same = (a: Call, b: Call) => a.tool === b.tool && canonical(a.input) === canonical(b.input);

export const THRESHOLD = 3;

export function isDoomLoop(previous: readonly Call[], next: Call): "repeat" | "cycle" | undefined {
  const last = previous.slice(-THRESHOLD);
  if (last.length === THRESHOLD && last.every((call) => same(call, next))) return "repeat";
  for (const period of [2, 3]) {
    const window = previous.slice(-period * THRESHOLD);
    if (window.length < period * THRESHOLD) continue;
    const block = window.slice(0, period);
    if (block.every((call) => same(call, block[0] as Call))) continue; // that is a plain repeat
    const repeats = window.every((call, i) => same(call, block[i % period] as Call));
    if (repeats && same(next, block[0] as Call)) return "cycle";
  }
  return undefined;
}
