import { describe, expect, it } from "vitest";
import { makeTeam, testDb } from "../../test/db";
import { type FakeOpenAI, type StreamStep, reply, toolCallSteps } from "../../test/fake-openai";
import { PRICES, fakeOpenAIAround, isPartUpdate, scriptedServices, recorder } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import type { AssistantMessage, Part, PartOf, WithParts } from "./message";
import * as Prompt from "./prompt";
import * as Status from "./status";
import { Session } from ".";
import { withActor } from "../services";
import { builtinTools } from "../tool/registry";
import { compatibleChatModel } from "../provider/compatible/chat-stream";

/**
 * The loop driving the `compatible` provider (`@ai-sdk/openai` Chat Completions, its streams
 * read by `chat-stream.ts`) against a local
 * fake OpenAI server: what streams in, what the model is sent, usage, retries with their
 * delays and cap, dropped connections, malformed chunks and queued prompts.
 */

let fake: FakeOpenAI;
fakeOpenAIAround((started) => (fake = started));

function model() {
  return compatibleChatModel("gpt-test", { baseURL: `${fake.url}/v1`, apiKey: "test" });
}

/** A session on a fresh team, deps wired to the fake server, and an event recorder. */
async function setup(options: { maxAttempts?: number } = {}) {
  const bus = new Bus();
  const { ctx, projectId } = await makeTeam({ bus });
  const deps = scriptedServices(bus, model(), { maxAttempts: options.maxAttempts ?? 3 });
  const session = await Session.create(ctx, { projectId });
  const rec = recorder(bus, ctx.actor.teamId, session.id);
  fake.reset();
  const first = fake.requests.length;
  /** The requests this test made. */
  const requests = () => fake.requests.slice(first);
  const ask = async (text: string) => {
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text }] });
  };
  const idle = () => deps.runners.idle(session.id);
  const messages = () => Session.allMessages(ctx, session.id);
  return { bus, ctx, deps, session, rec, requests, ask, idle, messages };
}

function assistants(messages: WithParts[]): { info: AssistantMessage; parts: Part[] }[] {
  return messages.flatMap((m) => (m.info.role === "assistant" ? [{ info: m.info, parts: m.parts }] : []));
}

function only<T extends Part["type"]>(parts: Part[], type: T): PartOf<T>[] {
  return parts.filter((p): p is PartOf<T> => p.type === type);
}

function texts(messages: WithParts[]): string[] {
  return assistants(messages).flatMap((m) => only(m.parts, "text").map((p) => p.text));
}

const text = (...deltas: string[]): StreamStep[] => deltas.map((t) => ({ kind: "text", text: t }));

describe("openai chat provider through the loop", () => {
  it("streams text into a text part and sends the system prompt and user text", async () => {
    const s = await setup();
    fake.enqueue(reply.text("Hello", ", ", "world.  "));
    await s.ask("say hello");
    await s.idle();
    const all = await s.messages();
    expect(all.map((m) => m.info.role)).toEqual(["user", "assistant"]);
    expect(texts(all)).toEqual(["Hello, world."]);
    const deltas = s.rec.partUpdates().filter((u) => u.delta !== undefined && u.part.type === "text");
    // The first delta goes out at once; those right behind it (within the part's 16 ms
    // window) follow together, in order, losing and repeating nothing.
    expect(deltas[0]?.delta).toBe("Hello");
    expect(deltas.map((u) => u.delta).join("")).toBe("Hello, world.  ");

    const [request] = s.requests();
    expect(request?.body).toMatchObject({ model: "gpt-test", stream: true, stream_options: { include_usage: true } });
    const roles = request?.body.messages.map((m) => m.role);
    expect(roles?.[0]).toBe("system");
    expect(request?.body.messages.at(-1)).toMatchObject({ role: "user" });
    expect(JSON.stringify(request?.body.messages.at(-1)?.content)).toContain("say hello");
    expect(request?.body.tools?.map((t) => t.function.name)).toEqual(["echo"]);
  });

  it("runs a tool call whose arguments arrive in pieces and sends its result on the next request", async () => {
    const s = await setup();
    fake.enqueue(
      reply.stream([
        ...text("Let me echo."),
        ...toolCallSteps({ id: "call_abc", name: "echo", pieces: ['{"te', 'xt":', ' "hel', 'lo"}'] }),
        { kind: "finish", reason: "tool_calls" },
        { kind: "usage", usage: { prompt: 50, completion: 12 } },
      ]),
      reply.text("It says HELLO."),
    );
    await s.ask("echo hello");
    await s.idle();
    const all = await s.messages();
    const [first, second] = assistants(all);
    expect(first?.info.finish).toBe("tool-calls");
    const [tool] = only(first?.parts ?? [], "tool");
    expect(tool).toMatchObject({ callId: "call_abc", tool: "echo" });
    expect(tool?.state).toMatchObject({ status: "completed", input: { text: "hello" }, output: "HELLO", title: "echo hello" });
    // The pending part's raw input grew piece by piece before the call ran.
    const raws = s.rec
      .partUpdates()
      .flatMap((u) => (u.part.type === "tool" && u.part.state.status === "pending" ? [u.part.state.raw] : []));
    expect(raws.at(-1)).toBe('{"text": "hello"}');
    expect(raws.length).toBeGreaterThanOrEqual(2);
    // Each update (pieces within one window come together) extends the one before.
    for (let i = 1; i < raws.length; i++) expect(raws[i]?.startsWith(raws[i - 1] ?? "")).toBe(true);
    expect(second?.info.finish).toBe("stop");
    expect(texts(all)).toEqual(["Let me echo.", "It says HELLO."]);

    const requests = s.requests();
    expect(requests).toHaveLength(2);
    const sent = requests[1]?.body.messages ?? [];
    const call = sent.find((m) => m.role === "assistant" && m.tool_calls?.length);
    expect(call?.tool_calls?.[0]).toMatchObject({ id: "call_abc", function: { name: "echo" } });
    expect(JSON.parse(call?.tool_calls?.[0]?.function.arguments ?? "null")).toEqual({ text: "hello" });
    const result = sent.find((m) => m.role === "tool");
    expect(result).toMatchObject({ role: "tool", tool_call_id: "call_abc" });
    expect(JSON.stringify(result?.content)).toContain("HELLO");
  });

  it("puts usage from the usage chunk on the message and the session totals", async () => {
    const s = await setup();
    fake.enqueue(
      reply.stream([...text("ok"), { kind: "finish", reason: "stop" }, { kind: "usage", usage: { prompt: 1000, completion: 500, cached: 300, reasoning: 200 } }]),
    );
    await s.ask("count");
    await s.idle();
    const [answer] = assistants(await s.messages());
    // Chat Completions reports cached (read) tokens and reasoning tokens; no cache writes.
    const tokens = { input: 700, output: 300, reasoning: 200, cache: { read: 300, write: 0 } };
    expect(answer?.info.tokens).toEqual(tokens);
    // (700·3 + 300·15 + 200·15 + 300·0.3) / 1e6 at the harness prices
    expect(PRICES).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(answer?.info.cost).toBe(0.00969);
    const info = await Session.get(s.ctx, s.session.id);
    expect(info.tokens).toMatchObject({ input: 700, output: 300, reasoning: 200 });
    expect(info.cost).toBe(0.00969);
  });

  it("retries a 429 after its retry-after: a retry part, status retry then busy, the delay honoured", async () => {
    const s = await setup();
    fake.enqueue(reply.error(429, { headers: { "retry-after": "1" }, message: "Rate limit reached", type: "rate_limit_exceeded" }), reply.text("finally"));
    await s.ask("hi");
    await s.idle();
    const requests = s.requests();
    expect(requests).toHaveLength(2);
    expect((requests[1]?.time ?? 0) - (requests[0]?.time ?? 0)).toBeGreaterThanOrEqual(950);

    const all = await s.messages();
    const [answer] = assistants(all);
    expect(answer?.info.error).toBeUndefined();
    expect(texts(all)).toEqual(["finally"]);
    const [retry] = only(answer?.parts ?? [], "retry");
    expect(retry).toMatchObject({ attempt: 1, error: { name: "APIError", statusCode: 429, isRetryable: true } });

    const statuses = s.rec.statuses();
    const retryAt = statuses.findIndex((st) => st.type === "retry");
    expect(retryAt).toBeGreaterThan(0);
    const status = statuses[retryAt];
    expect(status).toMatchObject({ type: "retry", attempt: 1 });
    if (status?.type === "retry") {
      expect(status.message).toContain("Rate limit");
      expect(status.next).toBeGreaterThanOrEqual((requests[0]?.time ?? 0) + 950);
    }
    expect(statuses[retryAt + 1]).toEqual({ type: "busy" });
    expect(statuses.at(-1)).toEqual({ type: "idle" });
  });

  it("stops after maxAttempts 500s: APIError on the message, status idle, exactly maxAttempts requests", async () => {
    const s = await setup({ maxAttempts: 3 });
    const fail = () => reply.error(500, { headers: { "retry-after-ms": "10" }, message: "upstream exploded" });
    fake.enqueue(fail(), fail(), fail(), fail(), fail());
    await s.ask("hi");
    await s.idle();
    expect(s.requests()).toHaveLength(3);
    const [answer] = assistants(await s.messages());
    expect(answer?.info.error).toMatchObject({ name: "APIError", statusCode: 500, isRetryable: true });
    expect(only(answer?.parts ?? [], "retry").map((p) => p.attempt)).toEqual([1, 2]);
    expect(s.rec.statuses().at(-1)).toEqual({ type: "idle" });
    const row = await testDb().session.findUniqueOrThrow({ where: { id: s.session.id } });
    expect(Status.fromRow(row)).toEqual({ type: "idle" });
    // Two scripted failures were never asked for: retries stopped.
    expect(fake.pending()).toBe(2);
  });

  /** Ask "hi"; the answer comes from the second request, without an error. */
  async function answeredOnSecondRequest(s: Awaited<ReturnType<typeof setup>>) {
    await s.ask("hi");
    await s.idle();
    expect(s.requests()).toHaveLength(2);
    const all = await s.messages();
    const [answer] = assistants(all);
    expect(answer?.info.error).toBeUndefined();
    return { all, answer };
  }

  it("retries a connection dropped mid-stream without duplicating the text", async () => {
    const s = await setup();
    fake.enqueue(reply.stream([...text("Hello", " wor"), { kind: "destroy" }]), reply.text("Hello", " world"));
    const { all, answer } = await answeredOnSecondRequest(s);
    expect(texts(all)).toEqual(["Hello world"]);
    expect(only(answer?.parts ?? [], "retry")).toHaveLength(1);
    // One step: the failed attempt left no step-start behind.
    expect(only(answer?.parts ?? [], "step-start")).toHaveLength(1);
    expect(s.rec.events.some((e) => e.name === "message.part.removed")).toBe(true);
  });

  it("retries a retryable error sent inside the stream after some output", async () => {
    const s = await setup();
    fake.enqueue(
      reply.stream([...text("partial"), { kind: "raw", data: JSON.stringify({ error: { message: "The server is overloaded", type: "server_error", code: null } }) }]),
      reply.text("complete"),
    );
    const { all, answer } = await answeredOnSecondRequest(s);
    expect(texts(all)).toEqual(["complete"]);
    expect(only(answer?.parts ?? [], "retry")[0]?.error).toMatchObject({ name: "APIError", message: "The server is overloaded" });
  });

  it("ends the turn with a stored error on a malformed chunk (no crash, status idle)", async () => {
    const s = await setup();
    fake.enqueue(reply.stream([...text("start"), { kind: "raw", data: "{not json" }, ...text(" more"), { kind: "finish", reason: "stop" }]));
    await s.ask("hi");
    await s.idle();
    expect(s.requests()).toHaveLength(1);
    const [answer] = assistants(await s.messages());
    expect(answer?.info.error).toBeDefined();
    expect(answer?.info.error?.name).not.toBe("AbortedError");
    expect(answer?.info.time.completed).toBeDefined();
    // What streamed before the bad chunk is kept and closed.
    const [part] = only(answer?.parts ?? [], "text");
    expect(part?.text.startsWith("start")).toBe(true);
    expect(part?.time?.end).toBeDefined();
    expect(s.rec.statuses().at(-1)).toEqual({ type: "idle" });
  });

  it("a 401 is an AuthError and a context-length 400 a ContextOverflowError; neither is retried", async () => {
    const s = await setup();
    fake.enqueue(reply.error(401, { message: "Incorrect API key provided", type: "invalid_request_error" }));
    await s.ask("hi");
    await s.idle();
    const [denied] = assistants(await s.messages());
    expect(denied?.info.error).toMatchObject({ name: "AuthError", providerId: "openai", message: "Incorrect API key provided" });
    expect(s.requests()).toHaveLength(1);

    const t = await setup();
    fake.enqueue(
      reply.error(400, {
        body: { error: { message: "This model's maximum context length is 128000 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } },
      }),
    );
    await t.ask("hi");
    await t.idle();
    const [overflow] = assistants(await t.messages());
    expect(overflow?.info.error?.name).toBe("ContextOverflowError");
    expect(t.requests()).toHaveLength(1);
  });

  it("an abort mid-stream stops the request, keeps the text so far and ends idle with AbortedError", async () => {
    const s = await setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue(reply.stream([...text("Once upon", " a time"), { kind: "gate", until: gate }, ...text(" never sent")]));
    try {
      await s.ask("tell a story");
      await s.rec.when((e) => isPartUpdate(e, (_p, delta) => delta === " a time"));
      await Prompt.abort(withActor(s.deps, s.ctx.actor), s.session.id);
      await s.idle();
    } finally {
      release();
    }
    const [answer] = assistants(await s.messages());
    expect(answer?.info.error?.name).toBe("AbortedError");
    const [part] = only(answer?.parts ?? [], "text");
    expect(part?.text).toBe("Once upon a time");
    expect(part?.time?.end).toBeDefined();
    expect(s.rec.statuses().at(-1)).toEqual({ type: "idle" });
    expect(s.requests()).toHaveLength(1);
  });

  it("queues a second prompt sent while the first streams and answers it after, in order, one runner at a time", async () => {
    const s = await setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue(reply.stream([...text("first "), { kind: "gate", until: gate }, ...text("answer"), { kind: "finish", reason: "stop" }]), reply.text("second answer"));
    await s.ask("one");
    await s.rec.when((e) => isPartUpdate(e, (_p, delta) => delta === "first "));
    const runner = s.deps.runners.get(s.session.id);
    expect(runner).toBeDefined();
    await s.ask("two");
    // Still the same single runner; the second request has not been made.
    expect(s.deps.runners.get(s.session.id)).toBe(runner);
    expect(s.deps.runners.size).toBe(1);
    expect(s.requests()).toHaveLength(1);
    release();
    await s.idle();

    const all = await s.messages();
    // The first answer started before the second prompt was written.
    expect(all.map((m) => m.info.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const users = all.filter((m) => m.info.role === "user");
    const answers = assistants(all);
    expect(users).toHaveLength(2);
    expect(answers).toHaveLength(2);
    expect(answers.map((a) => only(a.parts, "text").map((p) => p.text).join(""))).toEqual(["first answer", "second answer"]);
    expect(answers[0]?.info.parentId).toBe(users[0]?.info.id);
    expect(answers[1]?.info.parentId).toBe(users[1]?.info.id);
    // The second answer was asked after the first finished, and the model saw both prompts and the first answer.
    const requests = s.requests();
    expect(requests).toHaveLength(2);
    const sent = JSON.stringify(requests[1]?.body.messages);
    expect(sent).toContain("one");
    expect(sent).toContain("two");
    expect(sent).toContain("first answer");
    // busy once for the whole run, idle at the end.
    const statuses = s.rec.statuses().map((st) => st.type);
    expect(statuses[0]).toBe("busy");
    expect(statuses.at(-1)).toBe("idle");
    expect(statuses.filter((st) => st === "idle")).toHaveLength(1);
  });
});

describe("a subagent through the openai chat provider", () => {
  it("runs the task in a child whose request holds only its prompt and its agent's tools; the parent reads the child's answer", async () => {
    const bus = new Bus();
    const { ctx, projectId } = await makeTeam({ bus });
    const deps = scriptedServices(bus, model(), { tools: builtinTools() });
    const parent = await Session.create(ctx, { projectId, title: "delegating" });
    fake.reset();
    const first = fake.requests.length;
    const args = JSON.stringify({ description: "find greet", prompt: "Find where greet is defined.", subagent_type: "explore" });
    fake.enqueue(
      reply.toolCall({ id: "call_task", name: "task", pieces: [args.slice(0, 20), args.slice(20)] }),
      reply.text("greet is defined in src/greet.ts"),
      reply.text("The subagent found it: src/greet.ts"),
    );
    await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: parent.id, parts: [{ type: "text", text: "where is greet defined?" }] });
    await deps.runners.idle(parent.id);

    const [childRequest, parentAgain] = fake.requests.slice(first + 1);
    const userContents = (childRequest?.body.messages ?? []).filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
    expect(userContents).toEqual([JSON.stringify("Find where greet is defined.")]);
    const childTools = (childRequest?.body.tools ?? []).map((t) => t.function.name).sort();
    expect(childTools).toEqual(["glob", "grep", "list", "read"]);
    const toolResult = parentAgain?.body.messages.find((m) => m.role === "tool");
    expect(JSON.stringify(toolResult?.content)).toContain("greet is defined in src/greet.ts");

    const [child] = await Session.children(ctx, parent.id);
    expect(child).toMatchObject({ parentId: parent.id, title: "find greet (@explore subagent)", agent: "explore" });
    expect(texts(await Session.allMessages(ctx, parent.id)).at(-1)).toBe("The subagent found it: src/greet.ts");
  });
});
