import { describe, expect, it } from "vitest";
import { compaction, historyBuilder, text, toolOutput } from "../../test/history";
import type { Part, WithParts } from "./message";
import { PRUNE_MINIMUM, PRUNE_PROTECT, estimate, pruneCandidates } from "./prune";

/** Prune: which old tool outputs are hidden from the model. */

/** Characters of an output estimated at `n` tokens. */
const tokens = (n: number) => n * 4;

function outputs(parts: Part[]): number[] {
  return parts.map((p) => (p.type === "tool" && p.state.status === "completed" ? estimate(p.state.output) : -1));
}

/** Three user turns; `old` tool outputs in the first turn's answer, `recent` in both later answers. */
function threeTurns(old: Parameters<typeof toolOutput>[], recent: Parameters<typeof toolOutput>[] = []) {
  const h = historyBuilder();
  const u1 = h.user([text("first")]);
  const a1 = h.assistant(u1, old.map((args) => toolOutput(...args)), { finish: "tool-calls" });
  const u2 = h.user([text("second")]);
  const a2 = h.assistant(u2, recent.map((args) => toolOutput(...args)));
  const u3 = h.user([text("third")]);
  const a3 = h.assistant(u3, recent.map((args) => toolOutput(...args)));
  return { history: [u1, a1, u2, a2, u3, a3], a1 };
}

describe("prune", () => {
  it("estimates tokens as characters / 4", () => {
    expect(estimate("abcd".repeat(10))).toBe(10);
    expect(PRUNE_PROTECT).toBe(40_000);
    expect(PRUNE_MINIMUM).toBe(20_000);
  });

  it("prunes nothing while the outputs beyond the newest 40,000 tokens total 20,000 or less", () => {
    // Walking back: the newer output fills the protected 40,000; the older one (20,000) is a candidate.
    const { history } = threeTurns([[tokens(20_000)], [tokens(40_000)]]);
    expect(pruneCandidates(history)).toEqual([]);
  });

  it("prunes the outputs beyond the newest 40,000 tokens once they total more than 20,000", () => {
    const { history, a1 } = threeTurns([[tokens(5_000)], [tokens(20_001)], [tokens(40_000)]]);
    const candidates = pruneCandidates(history);
    // Newest first: the 20,001 and the 5,000 outputs; the newest 40,000 stay.
    expect(outputs(candidates)).toEqual([20_001, 5_000]);
    expect(candidates.map((p) => p.id)).toEqual([a1.parts[1]?.id, a1.parts[0]?.id]);
  });

  it("the output that crosses the 40,000 boundary is a candidate too", () => {
    const { history } = threeTurns([[tokens(30_000)], [tokens(30_000)]]);
    expect(outputs(pruneCandidates(history))).toEqual([30_000]);
  });

  it("never touches the last 2 user turns", () => {
    const huge: Parameters<typeof toolOutput>[] = [[tokens(100_000)], [tokens(100_000)]];
    expect(pruneCandidates(threeTurns([], huge).history)).toEqual([]);
    // The same outputs one turn further back are fair game.
    const { history } = threeTurns(huge, huge);
    const candidates = pruneCandidates(history);
    expect(outputs(candidates)).toEqual([100_000, 100_000]);
    expect(candidates.every((p) => history[1]?.parts.some((q) => q.id === p.id))).toBe(true);
  });

  it("counts the turns of the newest messages even when the newest one is a user message", () => {
    const h = historyBuilder();
    const u1 = h.user([text("one")]);
    const a1 = h.assistant(u1, [toolOutput(tokens(70_000))]);
    const u2 = h.user([text("two")]);
    const a2 = h.assistant(u2, [toolOutput(tokens(70_000))]);
    const u3 = h.user([text("three, not answered yet")]);
    // u3 and u2 are the last two turns: only a1 is walked, and 70,000 > 40,000 + 20,000.
    expect(pruneCandidates([u1, a1, u2, a2, u3]).map((p) => p.id)).toEqual([a1.parts[0]?.id]);
  });

  it("stops at a compaction summary: what it replaced is never walked", () => {
    const h = historyBuilder();
    const u0 = h.user([text("long ago")]);
    const a0 = h.assistant(u0, [toolOutput(tokens(500_000))]);
    const request = h.user([compaction(true)]);
    const summary = h.assistant(request, [text("summary")], { summary: true, agent: "compaction" });
    const u1 = h.user([text("continue")]);
    const a1 = h.assistant(u1, [toolOutput(tokens(30_000)), toolOutput(tokens(40_000))]);
    const u2 = h.user([text("two")]);
    const u3 = h.user([text("three")]);
    const candidates = pruneCandidates([u0, a0, request, summary, u1, a1, u2, u3]);
    expect(candidates.map((p) => p.id)).toEqual([a1.parts[0]?.id]);
  });

  it("stops at an output that is already pruned", () => {
    const h = historyBuilder();
    const u0 = h.user([text("older")]);
    const a0 = h.assistant(u0, [toolOutput(tokens(200_000))]);
    const u1 = h.user([text("one")]);
    const a1 = h.assistant(u1, [toolOutput(tokens(100_000), { compacted: 5 }), toolOutput(tokens(40_000)), toolOutput(tokens(30_000))]);
    const u2 = h.user([text("two")]);
    const u3 = h.user([text("three")]);
    // Walking back: 30,000 (kept), 40,000 (crosses 40,000: candidate), then the pruned one ends the walk.
    const candidates = pruneCandidates([u0, a0, u1, a1, u2, u3]);
    expect(candidates.map((p) => p.id)).toEqual([a1.parts[1]?.id]);
  });

  it("never counts or prunes protected tools (skill)", () => {
    const h = historyBuilder();
    const u1 = h.user([text("one")]);
    const a1 = h.assistant(u1, [toolOutput(tokens(30_000)), toolOutput(tokens(100_000), { tool: "skill" }), toolOutput(tokens(40_000))]);
    const u2 = h.user([text("two")]);
    const u3 = h.user([text("three")]);
    const history: WithParts[] = [u1, a1, u2, u3];
    const candidates = pruneCandidates(history);
    // Without the protection the skill output would be counted and pruned as well.
    expect(candidates.map((p) => p.id)).toEqual([a1.parts[0]?.id]);
    const onlySkill = h.assistant(u1, [toolOutput(tokens(500_000), { tool: "skill" })]);
    expect(pruneCandidates([u1, onlySkill, u2, u3])).toEqual([]);
  });

  it("ignores tools that did not complete", () => {
    const h = historyBuilder();
    const u1 = h.user([text("one")]);
    const a1 = h.assistant(u1, [
      { type: "tool", callId: "c1", tool: "bash", state: { status: "error", input: {}, error: "x".repeat(tokens(200_000)), time: { start: 1, end: 2 } } },
    ]);
    const u2 = h.user([text("two")]);
    const u3 = h.user([text("three")]);
    expect(pruneCandidates([u1, a1, u2, u3])).toEqual([]);
  });
});
