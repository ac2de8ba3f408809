import { describe, expect, it } from "vitest";
import { compaction, historyBuilder, text, toolOutput } from "../../test/history";
import { canHelp } from "./compaction";
import { filterCompacted, pendingCompaction } from "./filter";
import { COMPACTION_QUESTION, toModelMessages } from "./model-messages";

/** filterCompacted and what the model then sees (toModelMessages). */

function conversation() {
  const h = historyBuilder();
  const u1 = h.user([text("build the parser")]);
  const a1 = h.assistant(u1, [toolOutput(40, { callId: "call_1" }), text("read it")], { finish: "tool-calls" });
  const c1 = h.user([compaction(true)]);
  const s1 = h.assistant(c1, [text("FIRST SUMMARY")], { summary: true, agent: "compaction" });
  const k1 = h.user([text("Continue if you have next steps", { synthetic: true })]);
  const a2 = h.assistant(k1, [text("parser done")]);
  const u2 = h.user([text("now the printer")]);
  const a3 = h.assistant(u2, [toolOutput(40, { callId: "call_2" })], { finish: "tool-calls" });
  const c2 = h.user([compaction(false)]);
  const s2 = h.assistant(c2, [text("SECOND SUMMARY")], { summary: true, agent: "compaction" });
  const u3 = h.user([text("and the tests")]);
  return { h, all: [u1, a1, c1, s1, k1, a2, u2, a3, c2, s2, u3], c1, s1, c2, s2, u3 };
}

describe("filterCompacted", () => {
  it("keeps everything when there is no compaction", () => {
    const h = historyBuilder();
    const u = h.user([text("hi")]);
    const a = h.assistant(u, [text("hello")]);
    expect(filterCompacted([u, a])).toEqual([u, a]);
    expect(filterCompacted([])).toEqual([]);
  });

  it("starts at the latest completed compaction: with two, only the second counts", () => {
    const { all, c2, s2, u3 } = conversation();
    expect(filterCompacted(all)).toEqual([c2, s2, u3]);
  });

  it("the model sees the second summary and what follows — nothing before it", () => {
    const { all } = conversation();
    const sent = toModelMessages(filterCompacted(all));
    expect(sent).toEqual([
      { role: "user", content: [{ type: "text", text: COMPACTION_QUESTION }] },
      { role: "assistant", content: [{ type: "text", text: "SECOND SUMMARY" }] },
      { role: "user", content: [{ type: "text", text: "and the tests" }] },
    ]);
    const json = JSON.stringify(sent);
    for (const old of ["build the parser", "FIRST SUMMARY", "parser done", "now the printer", "call_1", "call_2"]) expect(json).not.toContain(old);
  });

  it("with only the first compaction completed, cuts there", () => {
    const { all, c1 } = conversation();
    const upToFirst = all.slice(0, all.indexOf(c1) + 4); // c1, s1, k1, a2
    const kept = filterCompacted(upToFirst);
    expect(kept[0]).toBe(c1);
    expect(kept).toHaveLength(4);
  });

  it("a pending or failed compaction cuts nothing: the previous completed one still counts", () => {
    const { all, c1, c2, s2 } = conversation();
    // Second compaction not answered yet.
    const pending = all.filter((m) => m !== s2);
    expect(filterCompacted(pending)[0]).toBe(c1);
    expect(pendingCompaction(pending.slice(0, pending.indexOf(c2) + 1))).toBe(c2);
    // Second summary failed (too large to compact).
    const failed = all.map((m) =>
      m === s2 && m.info.role === "assistant" ? { ...m, info: { ...m.info, error: { name: "ContextOverflowError" as const, message: "too large" } } } : m,
    );
    expect(filterCompacted(failed)[0]).toBe(c1);
    // Second summary still streaming (no finish yet).
    const unfinished = all.map((m) => (m === s2 && m.info.role === "assistant" ? { ...m, info: { ...m.info, finish: undefined } } : m));
    expect(filterCompacted(unfinished)[0]).toBe(c1);
  });

  it("a compaction request is pending until an assistant message comes after it", () => {
    const { all } = conversation();
    expect(pendingCompaction(all)).toBeUndefined();
    const h = historyBuilder();
    const u = h.user([text("hi")]);
    const c = h.user([compaction(false)]);
    const queued = h.user([text("queued behind the compaction")]);
    expect(pendingCompaction([u, c, queued])).toBe(c);
    expect(pendingCompaction([u])).toBeUndefined();
  });
});

describe("canHelp", () => {
  it("a compaction helps unless the overflowing step was the first after a summary", () => {
    const h = historyBuilder();
    const c = h.user([compaction(true)]);
    const s = h.assistant(c, [text("summary")], { summary: true, agent: "compaction" });
    const k = h.user([text("continue", { synthetic: true })]);
    const first = h.assistant(k, [toolOutput(40)], { finish: "tool-calls" });
    const second = h.assistant(k, [text("more")]);
    expect(canHelp([c, s, k], first.info.id)).toBe(false);
    expect(canHelp([c, s, k, first], second.info.id)).toBe(true);
    const u = h.user([text("no compaction yet")]);
    const a = h.assistant(u, []);
    expect(canHelp([u], a.info.id)).toBe(true);
  });
});
