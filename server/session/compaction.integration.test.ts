import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTeam } from "../../test/db";
import { type ChatMessage, type FakeOpenAI, type FakeReply, type StreamStep, reply, startFakeOpenAI } from "../../test/fake-openai";
import { historyBuilder, text, toolOutput } from "../../test/history";
import { PRICES, closeLocks, recorder, scriptedServices, settled } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import { isParleyError } from "../errors";
import { compatibleChatModel } from "../provider/compatible/chat-stream";
import { loadModel } from "../provider/provider";
import { createCallerFactory } from "../trpc/init";
import { appRouter } from "../trpc/router";
import * as Background from "./background";
import { CONTINUE_TEXT, SUMMARY_PROMPT, TOO_LARGE } from "./compaction";
import type { Info } from "./info";
import type { AssistantMessage, Part, WithParts } from "./message";
import { CLEARED_OUTPUT, COMPACTION_QUESTION } from "./model-messages";
import * as Prompt from "./prompt";
import { prune } from "./prune";
import * as Store from "./store";
import { recover } from "./recovery";
import { Session } from ".";
import { withActor } from "../services";

/**
 * Context management through the loop against a local fake OpenAI server,
 * with a model of 4,000 tokens of context and 1,000 of output (usable: 3,000): automatic
 * compaction when a step's usage fills the context, before a step when the last answer
 * did, and when the provider refuses the request as too long; manual compaction; a
 * compaction that does not fit fails instead of looping; prune after the loop.
 */

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await Background.settled();
  await closeLocks();
  await fake.close();
});

const LIMIT = { context: 4_000, output: 1_000 };

async function setup(options: { auto?: boolean; prune?: boolean } = {}) {
  const bus = new Bus();
  const language = compatibleChatModel("gpt-test", { baseURL: `${fake.url}/v1`, apiKey: "test" });
  const deps = scriptedServices(bus, language);
  deps.models.resolve = (ref) => ({ ref, language, limit: LIMIT, cost: PRICES });
  deps.settings.compaction = { auto: options.auto ?? true, prune: options.prune ?? false };
  const { ctx, projectId } = await makeTeam({ services: deps });
  // A named session: no background title request reaches the fake server.
  const session = await Session.create(ctx, { projectId, title: "compaction under test" });
  const rec = recorder(bus, ctx.actor.teamId, session.id);
  fake.reset();
  const first = fake.requests.length;
  const requests = () => fake.requests.slice(first);
  const ask = async (t: string) => {
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: t }] });
  };
  const idle = () => settled(deps, session.id);
  const messages = () => Session.allMessages(ctx, session.id);
  return { bus, ctx, deps, session, rec, requests, ask, idle, messages };
}

const say = (...deltas: string[]): StreamStep[] => deltas.map((t) => ({ kind: "text", text: t }));

/** A text answer with the given usage. */
function answer(t: string, prompt: number, completion = 20): FakeReply {
  return reply.stream([...say(t), { kind: "finish", reason: "stop" }, { kind: "usage", usage: { prompt, completion } }]);
}

/** An echo tool call with the given usage. */
function echoCall(id: string, word: string, prompt: number): FakeReply {
  return reply.toolCall({ id, name: "echo", pieces: [`{"text":"${word}"}`] }, { prompt, completion: 20 });
}

const contextError = (): FakeReply =>
  reply.error(400, {
    message: "This model's maximum context length is 4000 tokens. However, your messages resulted in 5210 tokens.",
    type: "invalid_request_error",
  });

function content(message: ChatMessage | undefined): string {
  const c = message?.content;
  if (typeof c === "string") return c;
  return (c ?? []).map((p) => p.text ?? "").join("");
}

function roles(messages: ChatMessage[]): string[] {
  return messages.map((m) => m.role);
}

function texts(message: WithParts | undefined): string[] {
  return (message?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : []));
}

function assistantInfo(message: WithParts | undefined): AssistantMessage | undefined {
  return message?.info.role === "assistant" ? message.info : undefined;
}

const compactionPart = (message: WithParts | undefined) => message?.parts.find((p): p is Extract<Part, { type: "compaction" }> => p.type === "compaction");

describe("automatic compaction", () => {
  it("a step whose usage fills the context is compacted; the work goes on from the summary alone", async () => {
    const s = await setup();
    fake.enqueue(
      echoCall("call_alpha", "alpha", 3_500), // 3,520 ≥ 3,000 usable
      answer("## Goal\nSUMMARY-OF-THE-WORK", 3_600, 50), // the summary (3,650 < the 4,000 window)
      answer("All done.", 400),
    );
    await s.ask("do the work");
    await s.idle();

    const requests = s.requests();
    expect(requests).toHaveLength(3);
    // The compaction request: the summary prompt, no tools, the whole history, then the question.
    const summaryRequest = requests[1]?.body;
    expect(summaryRequest?.messages[0]).toMatchObject({ role: "system", content: SUMMARY_PROMPT });
    for (const section of ["Goal", "Constraints", "Progress", "Key decisions", "Next steps", "Critical context", "Relevant files"]) {
      expect(SUMMARY_PROMPT).toContain(section);
    }
    expect(summaryRequest?.tools ?? []).toEqual([]);
    expect(content(summaryRequest?.messages.at(-1))).toBe(COMPACTION_QUESTION);
    const sentForSummary = JSON.stringify(summaryRequest?.messages);
    expect(sentForSummary).toContain("do the work");
    expect(sentForSummary).toContain("call_alpha");
    expect(sentForSummary).toContain("ALPHA");

    // The next request: the summary and what follows it, nothing older.
    const next = requests[2]?.body.messages ?? [];
    expect(roles(next)).toEqual(["system", "user", "assistant", "user"]);
    expect(content(next[1])).toBe(COMPACTION_QUESTION);
    expect(content(next[2])).toBe("## Goal\nSUMMARY-OF-THE-WORK");
    expect(content(next[3])).toBe(CONTINUE_TEXT);
    const sentAfter = JSON.stringify(next);
    for (const old of ["do the work", "call_alpha", "ALPHA"]) expect(sentAfter).not.toContain(old);
    expect(requests[2]?.body.tools?.map((t) => t.function.name)).toEqual(["echo"]);

    const all = await s.messages();
    expect(all.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(assistantInfo(all[1])?.finish).toBe("tool-calls");
    expect(compactionPart(all[2])).toMatchObject({ auto: true, overflow: true });
    const summary = assistantInfo(all[3]);
    expect(summary).toMatchObject({ summary: true, agent: "compaction", parentId: all[2]?.info.id, finish: "stop" });
    expect(summary?.error).toBeUndefined();
    expect(texts(all[3])).toEqual(["## Goal\nSUMMARY-OF-THE-WORK"]);
    expect(all[4]?.parts).toMatchObject([{ type: "text", text: CONTINUE_TEXT, synthetic: true }]);
    expect(texts(all[5])).toEqual(["All done."]);

    // time.compacting was set while it ran, cleared after; session.compacted once.
    const updates = s.rec.events.filter((e) => e.name === "session.updated").map((e) => (e.payload as { info: Info }).info.time.compacting);
    const set = updates.findIndex((t) => t !== undefined);
    expect(set).toBeGreaterThanOrEqual(0);
    expect(updates.slice(set + 1).some((t) => t === undefined)).toBe(true);
    expect((await Session.get(s.ctx, s.session.id)).time.compacting).toBeUndefined();
    expect(s.rec.events.filter((e) => e.name === "session.compacted")).toHaveLength(1);
    expect(s.rec.statuses().at(-1)).toEqual({ type: "idle" });
  });

  it("before a step: the last answer filled the context (auto was off then) — compact first, then answer", async () => {
    const s = await setup({ auto: false });
    fake.enqueue(answer("a very long answer", 3_500));
    await s.ask("first question");
    await s.idle();
    expect(s.requests()).toHaveLength(1);

    s.deps.settings.compaction = { auto: true, prune: false };
    fake.enqueue(answer("SUMMARY: first question answered; second asked", 3_000), answer("Second answer.", 300));
    await s.ask("second question");
    await s.idle();
    const requests = s.requests();
    expect(requests).toHaveLength(3);
    // The compaction ran before answering: its request holds both questions.
    expect(content(requests[1]?.body.messages.at(-1))).toBe(COMPACTION_QUESTION);
    expect(JSON.stringify(requests[1]?.body.messages)).toContain("second question");
    const next = requests[2]?.body.messages ?? [];
    expect(roles(next)).toEqual(["system", "user", "assistant", "user"]);
    expect(JSON.stringify(next)).not.toContain("a very long answer");
    const all = await s.messages();
    expect(all.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "user", "assistant", "user", "assistant"]);
    expect(compactionPart(all[3])).toMatchObject({ auto: true, overflow: true });
    expect(texts(all[6])).toEqual(["Second answer."]);
  });

  it("a request the provider refuses as too long is compacted and tried again from the summary", async () => {
    const s = await setup();
    fake.enqueue(contextError(), answer("SUMMARY-AFTER-REFUSAL", 2_000), answer("Recovered.", 300));
    await s.ask("a question that is too long");
    await s.idle();
    expect(s.requests()).toHaveLength(3);
    const all = await s.messages();
    expect(all.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(assistantInfo(all[1])?.error?.name).toBe("ContextOverflowError");
    expect(compactionPart(all[2])).toMatchObject({ auto: true, overflow: true });
    expect(texts(all[5])).toEqual(["Recovered."]);
    expect(JSON.stringify(s.requests()[2]?.body.messages)).not.toContain("a question that is too long");
  });

  it("does not compact again when the first step after a summary still fills the context", async () => {
    const s = await setup();
    fake.enqueue(echoCall("call_1", "one", 3_500), answer("SUMMARY", 3_000), answer("Still full, but done.", 3_500));
    await s.ask("go");
    await s.idle();
    // One compaction: the next overflow came from the summary plus the fixed overhead, which
    // another summary cannot shrink.
    expect(s.requests()).toHaveLength(3);
    const all = await s.messages();
    expect(all.filter((m) => compactionPart(m))).toHaveLength(1);
    expect(texts(all.at(-1))).toEqual(["Still full, but done."]);
  });

  it("is off when compaction.auto is false", async () => {
    const s = await setup({ auto: false });
    fake.enqueue(echoCall("call_1", "one", 3_900), answer("Finished anyway.", 3_950));
    await s.ask("go");
    await s.idle();
    expect(s.requests()).toHaveLength(2);
    expect((await s.messages()).some((m) => compactionPart(m))).toBe(false);
  });
});

describe("with the built-in offline model", () => {
  it("'fill the context' triggers a compaction the offline model summarises, then it goes on", async () => {
    const bus = new Bus();
    const offline = loadModel({ providerId: "offline", modelId: "parley-offline" }, { openai: { apiKey: undefined, baseUrl: undefined }, offline: { tokensPerSecond: 0 } });
    const deps = scriptedServices(bus, offline.language);
    deps.models.resolve = () => offline;
    deps.settings.compaction = { auto: true, prune: false };
    const { ctx, projectId } = await makeTeam({ services: deps });
    const session = await Session.create(ctx, { projectId, title: "offline compaction" });
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "fill the context" }] });
    await deps.runners.idle(session.id);
    const all = await Session.allMessages(ctx, session.id);
    expect(all.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    // The catalog's 32,000-token window minus a 4,096-token reserve: 31,000 reported input overflows.
    expect(assistantInfo(all[1])?.tokens.input).toBeGreaterThanOrEqual(27_904);
    expect(compactionPart(all[2])).toMatchObject({ auto: true, overflow: true });
    expect(assistantInfo(all[3])).toMatchObject({ summary: true, finish: "stop" });
    expect(texts(all[3]).join("")).toContain("fill the context");
    expect(texts(all[4])).toEqual([CONTINUE_TEXT]);
    expect(assistantInfo(all[5])?.error).toBeUndefined();
  });
});

describe("crash recovery", () => {
  it("clears time.compacting left by a compaction the crash interrupted", async () => {
    const s = await setup();
    await s.deps.db.session.update({ where: { id: s.session.id }, data: { status: "busy", timeCompacting: new Date() } });
    await recover(s.deps, { skip: (id) => id !== s.session.id });
    const info = await Session.get(s.ctx, s.session.id);
    expect(info.time.compacting).toBeUndefined();
    expect(info.status).toEqual({ type: "idle" });
    const published = s.rec.events.filter((e) => e.name === "session.updated").map((e) => (e.payload as { info: Info }).info);
    expect(published.at(-1)?.time.compacting).toBeUndefined();
  });
});

describe("a compaction that does not fit", () => {
  it("fails with ContextOverflowError when the provider refuses the summary request, and does not loop", async () => {
    const s = await setup();
    fake.enqueue(echoCall("call_1", "one", 3_500), contextError());
    await s.ask("go");
    await s.idle();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(s.requests()).toHaveLength(2);
    const all = await s.messages();
    expect(all.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const summary = assistantInfo(all[3]);
    expect(summary?.summary).toBe(true);
    expect(summary?.error?.name).toBe("ContextOverflowError");
    expect((await Session.get(s.ctx, s.session.id)).time.compacting).toBeUndefined();
    expect(s.rec.events.some((e) => e.name === "session.compacted")).toBe(false);
    expect(s.rec.statuses().at(-1)).toEqual({ type: "idle" });
  });

  it("fails with ContextOverflowError when the summary's own usage reaches the whole window; the history stays whole", async () => {
    const s = await setup();
    fake.enqueue(echoCall("call_1", "one", 3_500), answer("a summary of a truncated prompt", 3_990, 10));
    await s.ask("go");
    await s.idle();
    expect(s.requests()).toHaveLength(2);
    const all = await s.messages();
    const summary = assistantInfo(all[3]);
    expect(summary?.error).toEqual({ name: "ContextOverflowError", message: TOO_LARGE });
    expect(s.rec.events.filter((e) => e.name === "session.error")).toHaveLength(1);

    // The failed summary cut nothing: the next prompt sends the whole history again.
    fake.enqueue(answer("Answered.", 500));
    await s.ask("next");
    await s.idle();
    const sent = JSON.stringify(s.requests()[2]?.body.messages);
    expect(sent).toContain("call_1");
    expect(sent).toContain("next");
  });
});

describe("manual compaction", () => {
  it("summarises on request without a continue message; the next prompt sees the summary and itself only", async () => {
    const s = await setup();
    fake.enqueue(answer("Hi there.", 200));
    await s.ask("hello");
    await s.idle();
    fake.enqueue(answer("MANUAL-SUMMARY", 250));
    const request = await Prompt.compact(s.ctx, { sessionId: s.session.id });
    await s.idle();
    const all = await s.messages();
    expect(all.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(all[2]?.info.id).toBe(request.id);
    expect(compactionPart(all[2])).toEqual(expect.objectContaining({ auto: false }));
    expect(compactionPart(all[2])?.overflow).toBeUndefined();
    expect(assistantInfo(all[3])).toMatchObject({ summary: true, agent: "compaction" });
    expect(texts(all[3])).toEqual(["MANUAL-SUMMARY"]);
    expect(s.rec.events.filter((e) => e.name === "session.compacted")).toHaveLength(1);

    fake.enqueue(answer("Sure.", 200));
    await s.ask("next");
    await s.idle();
    const requests = s.requests();
    expect(requests).toHaveLength(3);
    const next = requests[2]?.body.messages ?? [];
    expect(roles(next)).toEqual(["system", "user", "assistant", "user"]);
    expect(content(next[1])).toBe(COMPACTION_QUESTION);
    expect(content(next[2])).toBe("MANUAL-SUMMARY");
    expect(content(next[3])).toBe("next");
    expect(JSON.stringify(next)).not.toContain("Hi there.");
  });

  it("is a tRPC mutation: session.compact", async () => {
    const s = await setup();
    const caller = createCallerFactory(appRouter)(s.ctx);
    await expect(caller.session.compact({ sessionId: s.session.id })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    fake.enqueue(answer("Hello.", 100), answer("TRPC-SUMMARY", 100));
    await s.ask("hi");
    await s.idle();
    const request = await caller.session.compact({ sessionId: s.session.id });
    await s.idle();
    const all = await s.messages();
    expect(all.map((m) => m.info.id)).toContain(request.id);
    expect(texts(all.at(-1))).toEqual(["TRPC-SUMMARY"]);
  });

  it("is refused while the session runs, and on a session without messages", async () => {
    const s = await setup();
    await expect(Prompt.compact(s.ctx, { sessionId: s.session.id })).rejects.toSatisfy((e: unknown) => isParleyError(e) && e.code === "INVALID");
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue(reply.stream([...say("working"), { kind: "gate", until: gate }, { kind: "finish", reason: "stop" }, { kind: "usage", usage: { prompt: 10, completion: 1 } }]));
    const before = fake.requests.length;
    await s.ask("work");
    await fake.waitForRequests(before + 1);
    await expect(Prompt.compact(s.ctx, { sessionId: s.session.id })).rejects.toSatisfy((e: unknown) => isParleyError(e) && e.code === "BUSY");
    release();
    await s.idle();
    expect((await s.messages()).some((m) => compactionPart(m))).toBe(false);
  });
});

describe("prune after the loop", () => {
  it("marks old tool outputs compacted in the background, and the model then sees the placeholder", async () => {
    const s = await setup({ prune: true });
    const h = historyBuilder(s.session.id);
    const u1 = h.user([text("read the big files")]);
    const a1 = h.assistant(u1, [toolOutput(4 * 30_000, { callId: "call_old" }), toolOutput(4 * 40_000, { callId: "call_new" })]);
    const u2 = h.user([text("thanks")]);
    const a2 = h.assistant(u2, [text("welcome")]);
    for (const m of [u1, a1, u2, a2]) {
      await Session.updateMessage(s.ctx, m.info);
      for (const p of m.parts) await Session.updatePart(s.ctx, p);
    }
    fake.enqueue(answer("ok", 100), answer("ok again", 100));
    await s.ask("one more");
    await s.idle();
    // After the loop: a1 is outside the last two turns; its newest 40,000 tokens are kept, the 30,000 beyond pruned.
    const pruned = s.rec.partUpdates().filter((u) => u.part.type === "tool" && u.part.state.status === "completed" && u.part.state.time.compacted);
    expect(pruned.map((u) => (u.part.type === "tool" ? u.part.callId : ""))).toEqual(["call_old"]);
    const stored = (await s.messages()).find((m) => m.info.id === a1.info.id)?.parts ?? [];
    const byCall = (callId: string) => stored.find((p) => p.type === "tool" && p.callId === callId);
    const old = byCall("call_old");
    expect(old?.type === "tool" && old.state.status === "completed" && old.state.time.compacted).toBeGreaterThan(0);
    // Never deleted: the output is still stored.
    expect(old?.type === "tool" && old.state.status === "completed" && old.state.output.length).toBe(4 * 30_000);
    const kept = byCall("call_new");
    expect(kept?.type === "tool" && kept.state.status === "completed" && kept.state.time.compacted).toBeUndefined();

    await s.ask("and now?");
    await s.idle();
    const sent = JSON.stringify(s.requests()[1]?.body.messages);
    expect(sent).toContain(CLEARED_OUTPUT);
    expect(sent.length).toBeLessThan(4 * 41_000);
  });

  it("prune() leaves a session alone when too little would be gained", async () => {
    const s = await setup({ prune: false });
    const h = historyBuilder(s.session.id);
    const u1 = h.user([text("one")]);
    // 10,000 tokens beyond the protected 40,000: not worth the 20,000 minimum.
    const a1 = h.assistant(u1, [toolOutput(4 * 10_000), toolOutput(4 * 40_000)]);
    const u2 = h.user([text("two")]);
    const u3 = h.user([text("three")]);
    for (const m of [u1, a1, u2, u3]) {
      await Session.updateMessage(s.ctx, m.info);
      for (const p of m.parts) await Session.updatePart(s.ctx, p);
    }
    const marked = await prune(s.deps, s.ctx.actor.teamId, s.session.id);
    expect(marked.map((p) => p.id)).toEqual([]);
  });

  it("decides from one small statement when no prune can be worth it: a bound never below the tokens prune counts, pruned outputs left out", async () => {
    const s = await setup({ prune: false });
    const h = historyBuilder(s.session.id);
    const u1 = h.user([text("one")]);
    const output = (repeat: string, n: number) => {
      const part = toolOutput(0);
      return part.type === "tool" && part.state.status === "completed" ? { ...part, state: { ...part.state, output: repeat.repeat(n) } } : part;
    };
    // ASCII (1 byte a character), accented (2 bytes, 1 UTF-16 unit), emoji (4 bytes, 2 units): prune counts units / 4.
    const a1 = h.assistant(u1, [output("a", 1001), output("é", 999), output("😀", 500), toolOutput(4 * 50_000, { compacted: 5 })]);
    for (const m of [u1, a1]) {
      await Session.updateMessage(s.ctx, m.info);
      for (const p of m.parts) await Session.updatePart(s.ctx, p);
    }
    const counted = [1001, 999, 1000].reduce((sum, units) => sum + Math.round(units / 4), 0);
    const bound = await Store.toolOutputTokensBound(s.deps.db, s.session.id);
    expect(bound).toBeGreaterThanOrEqual(counted);
    // The pruned 50,000 tokens are not in it: a session pruned once is not loaded again for nothing.
    expect(bound).toBeLessThan(counted + 2_000);
  });
});
