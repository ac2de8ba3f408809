import { Agents } from "../agent/agent";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { LanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import { makeTeam, testDb } from "../../test/db";
import { closeLocks, finish, hangingStream, isPartUpdate, recorder, script, scriptedServices, settled } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import type { Db } from "../db/client";
import * as Id from "../id";
import type { AssistantMessage, UserMessage, WithParts } from "./message";
import { unanswered } from "./loop";
import * as Store from "./store";
import * as Prompt from "./prompt";
import { RunLock } from "./lock";
import { databaseUrl } from "../../test/db";
import { Session } from ".";
import { withActor } from "../services";

/** The prompt loop's runner: one per session, queueing, abort, status. */

afterAll(closeLocks);

const answer = (text: string): LanguageModelV4StreamPart[] => [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: text },
  { type: "text-end", id: "t" },
  finish("stop"),
];

function assistants(messages: WithParts[]): AssistantMessage[] {
  return messages.flatMap((m) => (m.info.role === "assistant" ? [m.info] : []));
}

function textOf(message: WithParts | undefined): string {
  return (message?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
}

/** Waits until `test` holds, polling. */
async function until(test: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The test database, with `session.update` calls that set the status to idle held back
 * while `slow.idle` is set: the runner is then still closing when the test acts.
 */
function slowIdleDb(slow: { idle: boolean }): Db {
  const db = testDb();
  // Status.set's statement: UPDATE "Session" SET status = <type>, …
  const execute = async (sql: TemplateStringsArray, ...values: unknown[]) => {
    if (slow.idle && sql.join("?").includes('UPDATE "Session" SET status') && values[0] === "idle") await new Promise((resolve) => setTimeout(resolve, 300));
    return db.$executeRaw(sql, ...values);
  };
  return new Proxy(db, { get: (target, prop, receiver) => (prop === "$executeRaw" ? execute : Reflect.get(target, prop, receiver)) });
}

/** A new session of a new team whose every model call goes to `model`. */
async function scriptedSession(model: LanguageModel) {
  const bus = new Bus();
  const deps = scriptedServices(bus, model);
  const { ctx, projectId } = await makeTeam({ services: deps });
  const session = await Session.create(ctx, { projectId });
  return { bus, ctx, deps, session };
}

describe("prompt loop runner", () => {
  it("a message sent right after an abort, while the runner is still closing, is answered", async () => {
    const bus = new Bus();
    const { ctx, projectId } = await makeTeam({ bus });
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => {
        calls++;
        if (calls === 1) return { stream: hangingStream([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "working" }], abortSignal) };
        return script([answer("second answer")]).doStream({ prompt: [] });
      },
    });
    const deps = scriptedServices(bus, model);
    const slow = { idle: false };
    deps.db = slowIdleDb(slow);
    const session = await Session.create(ctx, { projectId });
    const rec = recorder(bus, ctx.actor.teamId, session.id);
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "first" }] });
    await rec.when((e) => isPartUpdate(e, (_p, delta) => delta === "working"));

    slow.idle = true;
    await Prompt.abort(withActor(deps, ctx.actor), session.id);
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "do this instead" }] });
    // The first runner was still closing: the new message was left to it.
    expect(deps.runners.get(session.id)).toBeDefined();
    slow.idle = false;

    await until(async () => assistants(await Session.allMessages(ctx, session.id)).length === 2 && !deps.runners.get(session.id));
    await deps.runners.idle(session.id);
    const messages = await Session.allMessages(ctx, session.id);
    expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const [aborted, answered] = assistants(messages);
    expect(aborted?.error?.name).toBe("AbortedError");
    expect(answered?.error).toBeUndefined();
    expect(answered?.parentId).toBe(messages[2]?.info.id);
    expect(textOf(messages[3])).toBe("second answer");
    expect(rec.statuses().at(-1)).toEqual({ type: "idle" });
  });

  it("two prompts at once on an idle session: one runner, and the lock is free afterwards", async () => {
    const model = script([answer("both seen")]);
    const { bus, ctx, deps, session } = await scriptedSession(model);
    const rec = recorder(bus, ctx.actor.teamId, session.id);
    await Promise.all([
      Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "one" }] }),
      Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "two" }] }),
    ]);
    await settled(deps, session.id);
    const messages = await Session.allMessages(ctx, session.id);
    // Both questions reached the model in one request, answered once.
    expect(messages.map((m) => m.info.role)).toEqual(["user", "user", "assistant"]);
    expect(model.doStreamCalls).toHaveLength(1);
    expect(JSON.stringify(model.doStreamCalls[0]?.prompt)).toContain("one");
    expect(JSON.stringify(model.doStreamCalls[0]?.prompt)).toContain("two");
    expect(rec.statuses().map((s) => s.type)).toEqual(["busy", "idle"]);
    // Another instance can run the session now.
    const other = new RunLock(databaseUrl());
    try {
      expect(await other.isRunning(session.id)).toBe(false);
      expect(await other.tryAcquire(session.id)).toBe(true);
      await other.release(session.id);
    } finally {
      await other.close();
    }
  });

  it("a message stored after the runner read the history, with an id older than its answer (a prompt on another instance at the same moment), is answered next", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls++;
        if (calls > 1) return script([answer("the late one, answered")]).doStream({ prompt: [] });
        const stream = new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            for (const chunk of [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "working" }] as const) controller.enqueue(chunk);
            await gate;
            for (const chunk of answer("")) controller.enqueue(chunk);
            controller.close();
          },
        });
        return { stream };
      },
    });
    const { bus, ctx, deps, session } = await scriptedSession(model);
    const rec = recorder(bus, ctx.actor.teamId, session.id);
    const first = await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "first" }] });
    await rec.when((e) => isPartUpdate(e, (_p, delta) => delta === "working"));
    const [running] = assistants(await Session.allMessages(ctx, session.id));
    // The other instance took its message's id after this one's, before the answer's; it is stored only now.
    const lateId = `${first.id.slice(0, first.id.length - 14)}zzzzzzzzzzzzzz`;
    expect(first.id < lateId && running !== undefined && lateId < running.id).toBe(true);
    const late: UserMessage = { ...first, id: lateId, time: { created: Date.now() } };
    await Store.createUserMessage(deps, ctx.actor.teamId, late, [{ id: Id.ascending("part"), sessionId: session.id, messageId: lateId, type: "text", text: "the late one", time: { start: 1, end: 1 } }]);
    release();

    await until(async () => assistants(await Session.allMessages(ctx, session.id)).length === 2 && !deps.runners.get(session.id));
    expect(calls).toBe(2);
    expect(JSON.stringify(model.doStreamCalls[1]?.prompt)).toContain("the late one");
    const answers = assistants(await Session.allMessages(ctx, session.id));
    expect(answers.map((a) => a.parentId)).toEqual([first.id, lateId]);
    expect(await unanswered(deps, session.id)).toBe(false);
  });

  /** A new session that prompts "go" to `model`, once its runner is done. */
  async function promptedOnce(model: ReturnType<typeof script>) {
    const { ctx, deps, session } = await scriptedSession(model);
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "go" }] });
    await deps.runners.idle(session.id);
    return { ctx, session };
  }

  it("does not loop on a finished answer, and loops on tool-calls until the model stops", async () => {
    const model = script([
      [{ type: "tool-call", toolCallId: "a", toolName: "echo", input: '{"text":"1"}' }, finish("tool-calls")],
      [{ type: "tool-call", toolCallId: "b", toolName: "echo", input: '{"text":"2"}' }, finish("tool-calls")],
      answer("done"),
      answer("never asked"),
    ]);
    const { ctx, session } = await promptedOnce(model);
    const messages = await Session.allMessages(ctx, session.id);
    expect(assistants(messages).map((a) => a.finish)).toEqual(["tool-calls", "tool-calls", "stop"]);
    expect(model.doStreamCalls).toHaveLength(3);
    // Each step answers the same user message and sees the earlier tool results.
    expect(new Set(assistants(messages).map((a) => a.parentId)).size).toBe(1);
    expect(JSON.stringify(model.doStreamCalls[2]?.prompt)).toContain('"2"');
  });

  it("the next step sends reasoning back with its provider metadata", async () => {
    const model = script([
      [
        { type: "reasoning-start", id: "r", providerMetadata: { test: { signature: "sig-1" } } },
        { type: "reasoning-delta", id: "r", delta: "plan" },
        { type: "reasoning-end", id: "r" },
        { type: "tool-call", toolCallId: "a", toolName: "echo", input: '{"text":"1"}' },
        finish("tool-calls"),
      ],
      answer("done"),
    ]);
    await promptedOnce(model);
    const assistantTurn = model.doStreamCalls[1]?.prompt.find((m) => m.role === "assistant");
    expect(assistantTurn?.content[0]).toMatchObject({ type: "reasoning", text: "plan", providerOptions: { test: { signature: "sig-1" } } });
  });

  it("on an agent's last step the model gets no tools and is told to answer in text; the loop then ends", async () => {
    const bus = new Bus();
    const { ctx, projectId } = await makeTeam({ bus });
    // An agent of the configuration with a single step.
    const model = script([[{ type: "tool-call", toolCallId: "a", toolName: "echo", input: '{"text":"1"}' }, finish("tool-calls")], answer("never asked")]);
    const deps = scriptedServices(bus, model, { agents: new Agents({ oneshot: { description: "one step", mode: "primary", steps: 1 } }) });
    const session = await Session.create(ctx, { projectId });
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "go" }], agent: "oneshot" });
    await deps.runners.idle(session.id);
    expect(model.doStreamCalls).toHaveLength(1);
    const call = model.doStreamCalls[0];
    expect(call?.tools ?? []).toHaveLength(0);
    expect(JSON.stringify(call?.prompt[0])).toContain("MAXIMUM STEPS REACHED");
  });

  it("noReply stores the message without asking the model", async () => {
    const model = script([answer("x")]);
    const { ctx, deps, session } = await scriptedSession(model);
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "note" }], noReply: true });
    expect(deps.runners.get(session.id)).toBeUndefined();
    expect(model.doStreamCalls).toHaveLength(0);
    expect((await Session.allMessages(ctx, session.id)).map((m) => m.info.role)).toEqual(["user"]);
  });
});
