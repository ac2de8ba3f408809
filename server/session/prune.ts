import type { Services } from "../services";
import type { ToolPart, WithParts } from "./message";
import * as Store from "./store";

/**
 * Prune: after a loop run, old tool outputs are hidden from the model — marked
 * `time.compacted`, never deleted (toModelMessages sends a placeholder instead).
 *
 * Walking back from the newest message: the last 2 user turns are skipped; the walk stops
 * at a compaction summary or at an output that is already pruned (everything before it
 * was handled by an earlier prune); completed outputs of unprotected tools are counted
 * (estimated tokens = characters / 4). Outputs beyond the newest 40,000 tokens are the
 * candidates; they are pruned only when they total more than 20,000 tokens, so a prune
 * is always worth the cache miss it causes.
 */

export const PRUNE_PROTECT = 40_000;
export const PRUNE_MINIMUM = 20_000;
export const PROTECTED_TOOLS: readonly string[] = ["skill"];

/** Estimated tokens of a text: characters / 4. */
export function estimate(text: string): number {
  return Math.round(text.length / 4);
}

type CompletedTool = ToolPart & { state: { status: "completed" } };

function isCompletedTool(part: WithParts["parts"][number]): part is CompletedTool {
  return part.type === "tool" && part.state.status === "completed";
}

/** The tool parts a prune would mark, newest first (empty when not worth it). */
export function pruneCandidates(history: WithParts[]): CompletedTool[] {
  let turns = 0;
  let total = 0;
  let pruned = 0;
  const candidates: CompletedTool[] = [];
  walk: for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i];
    if (!message) continue;
    if (message.info.role === "user") turns++;
    if (turns < 2) continue;
    if (message.info.role === "assistant" && message.info.summary) break;
    for (let j = message.parts.length - 1; j >= 0; j--) {
      const part = message.parts[j];
      if (!part || !isCompletedTool(part)) continue;
      if (PROTECTED_TOOLS.includes(part.tool)) continue;
      if (part.state.time.compacted !== undefined) break walk;
      const tokens = estimate(part.state.output);
      total += tokens;
      if (total > PRUNE_PROTECT) {
        pruned += tokens;
        candidates.push(part);
      }
    }
  }
  return pruned > PRUNE_MINIMUM ? candidates : [];
}

/** Prune a session's old tool outputs; returns the parts marked. */
export async function prune(s: Services, teamId: string, sessionId: string): Promise<ToolPart[]> {
  // After every turn: most sessions hold too little tool output for any prune, which one
  // small statement tells without loading the history.
  if ((await Store.toolOutputTokensBound(s.db, sessionId)) <= PRUNE_PROTECT + PRUNE_MINIMUM) return [];
  const candidates = pruneCandidates(await Store.history(s.db, sessionId));
  if (candidates.length === 0) return [];
  const time = s.clock.now();
  const marked: ToolPart[] = [];
  for (const part of candidates) {
    const next: ToolPart = { ...part, state: { ...part.state, time: { ...part.state.time, compacted: time } } };
    await Store.writePart(s, teamId, next);
    marked.push(next);
  }
  return marked;
}
