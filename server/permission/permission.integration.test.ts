import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { MockLanguageModelV4 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import { databaseUrl, makeTeam, testDb, type TeamFixture } from "../../test/db";
import { testServices } from "../../test/runtime";
import { finish, PRICES, recorder, script } from "../../test/session-harness";
import { Bus, type Envelope } from "../bus/bus";
import { type Bridge, bridge } from "../bus/postgres";
import * as Prompt from "../session/prompt";
import type { AssistantMessage, Part, WithParts } from "../session/message";
import { type Services, withActor } from "../services";
import { Session } from "../session";
import { DEFAULTS, fromConfig } from "./evaluate";
import { Asked, Replied, type Request } from "./events";
import { Permissions } from "./permission";
import type { Ruleset } from "./schema";

/**
 * The ask flow through the real prompt loop: a scripted model calls the real
 * `bash`/`read` tools in a temporary project directory; every reply outcome is checked
 * with what the loop does next. Doom-loop asks go through the same flow.
 */

const dirs: string[] = [];
const bridges: Bridge[] = [];
afterAll(async () => {
  await Promise.all(bridges.splice(0).map((b) => b.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function projectDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "parley-perm-"));
  dirs.push(dir);
  writeFileSync(path.join(dir, "a.txt"), "alpha\n");
  writeFileSync(path.join(dir, "b.txt"), "beta\n");
  return dir;
}

const call = (id: string, tool: string, input: Record<string, unknown>): LanguageModelV4StreamPart => ({
  type: "tool-call",
  toolCallId: id,
  toolName: tool,
  input: JSON.stringify(input),
});
const bash = (id: string, command: string) => call(id, "bash", { command });
const step = (...calls: LanguageModelV4StreamPart[]): LanguageModelV4StreamPart[] => [...calls, finish("tool-calls")];
const answer = (text: string): LanguageModelV4StreamPart[] => [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: text },
  { type: "text-end", id: "t" },
  finish("stop"),
];

interface Setup {
  team: TeamFixture;
  deps: Services;
  permissions: Permissions;
  model: MockLanguageModelV4;
}

/** Loop services on `bus` for a scripted model (real tools, real permission service). */
function services(bus: Bus, model: MockLanguageModelV4, configRules: Ruleset = []): Pick<Setup, "deps" | "permissions"> {
  const deps = testServices(bus, {
    models: {
      resolve: (ref) => ({ ref, language: model, limit: { context: 100_000, output: 4_000 }, cost: PRICES }),
      default: () => ({ providerId: "test", modelId: "scripted" }),
    },
    configRules,
  });
  return { deps, permissions: deps.permissions };
}

async function setup(steps: LanguageModelV4StreamPart[][], options: { bus?: Bus; configRules?: Ruleset } = {}): Promise<Setup & { bus: Bus }> {
  const bus = options.bus ?? new Bus();
  const team = await makeTeam({ bus, directory: projectDir() });
  const model = script(steps);
  return { bus, team, model, ...services(bus, model, options.configRules) };
}

/** Named sessions: no title generation asks the scripted model for a title. */
const TITLE = "permission test";

async function newSession(team: TeamFixture) {
  const session = await Session.create(team.ctx, { projectId: team.projectId, title: TITLE });
  const rec = recorder(team.ctx.bus, team.teamId, session.id);
  return { session, rec };
}

const isAsked = (e: Envelope) => e.name === Asked.name;
const asked = (events: Envelope[]): Request[] => events.filter(isAsked).map((e) => (e.payload as { request: Request }).request);
const replied = (events: Envelope[]) =>
  events.filter((e) => e.name === Replied.name).map((e) => e.payload as { sessionId: string; requestId: string; reply: string });

/** Waits for the n-th (1-based) permission.asked of a session. */
async function nthAsk(rec: ReturnType<typeof recorder>, n: number): Promise<Request> {
  await rec.when(() => asked(rec.events).length >= n);
  const request = asked(rec.events)[n - 1];
  if (!request) throw new Error(`no ask #${n}`);
  return request;
}

function toolParts(messages: WithParts[]): Extract<Part, { type: "tool" }>[] {
  return messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "tool" ? [p] : [])));
}
function texts(messages: WithParts[]): string[] {
  return messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "text" && m.info.role === "assistant" ? [p.text] : [])));
}
function assistants(messages: WithParts[]): AssistantMessage[] {
  return messages.flatMap((m) => (m.info.role === "assistant" ? [m.info] : []));
}

/** What the model was sent as tool results in its n-th request (0-based). */
function toolResultsSent(model: MockLanguageModelV4, n: number): string {
  const prompt = model.doStreamCalls[n]?.prompt ?? [];
  return JSON.stringify(prompt.filter((m) => m.role === "tool"));
}

/** Waits until `test` holds, polling. */
async function until(test: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The tool parts of a session once `count` of them are persisted (the ask may be published first). */
async function persistedTools(team: TeamFixture, sessionId: string, count: number) {
  let parts: Extract<Part, { type: "tool" }>[] = [];
  await until(async () => {
    parts = toolParts(await Session.allMessages(team.ctx, sessionId));
    return parts.length >= count && parts.every((p) => p.state.status !== "pending");
  });
  return parts;
}

async function run(setup: Setup, sessionId: string, text = "go"): Promise<void> {
  await Prompt.prompt(withActor(setup.deps, setup.team.ctx.actor), { sessionId, parts: [{ type: "text", text }] });
}

describe("permissions through the prompt loop (integration)", () => {
  it("once: the tool runs, its output reaches the part, the loop goes on; the same call later asks again", async () => {
    const s = await setup([step(bash("c1", "echo hi")), step(bash("c2", "echo hi")), answer("all done")]);
    const { session, rec } = await newSession(s.team);
    await run(s, session.id);

    const first = await nthAsk(rec, 1);
    expect(first).toMatchObject({ sessionId: session.id, permission: "bash", patterns: ["echo hi"], always: ["echo *"], tool: { callId: "c1" } });
    expect(first.metadata).toMatchObject({ command: "echo hi" });
    // Nothing runs while the ask is open.
    expect(s.model.doStreamCalls).toHaveLength(1);
    await s.permissions.reply(s.team.ctx.actor, { requestId: first.id, reply: "once" });

    const second = await nthAsk(rec, 2);
    expect(second).toMatchObject({ permission: "bash", patterns: ["echo hi"], tool: { callId: "c2" } });
    await s.permissions.reply(s.team.ctx.actor, { requestId: second.id, reply: "once" });
    await s.deps.runners.idle(session.id);

    const messages = await Session.allMessages(s.team.ctx, session.id);
    const tools = toolParts(messages);
    expect(tools.map((t) => t.state.status)).toEqual(["completed", "completed"]);
    for (const t of tools) expect(t.state.status === "completed" && t.state.output).toBe("hi");
    // The model saw the output and answered.
    expect(toolResultsSent(s.model, 1)).toContain("hi");
    expect(texts(messages)).toEqual(["all done"]);
    expect(s.model.doStreamCalls).toHaveLength(3);
    expect(replied(rec.events).map((r) => r.reply)).toEqual(["once", "once"]);
    // "once" stores nothing.
    expect(await testDb().permissionApproval.count({ where: { projectId: s.team.projectId } })).toBe(0);
    expect(await s.permissions.pending(s.team.ctx.actor, session.id)).toEqual([]);
  });

  it("always: stored for project + agent, later matching calls run without asking, also after a restart", async () => {
    const s = await setup([step(bash("c1", "echo hi")), step(bash("c2", "echo again")), answer("done")]);
    const { session, rec } = await newSession(s.team);
    await run(s, session.id);
    const request = await nthAsk(rec, 1);
    await s.permissions.reply(s.team.ctx.actor, { requestId: request.id, reply: "always" });
    await s.deps.runners.idle(session.id);

    const approvals = await testDb().permissionApproval.findMany({ where: { projectId: s.team.projectId } });
    expect(approvals.map((a) => ({ teamId: a.teamId, agent: a.agent, permission: a.permission, pattern: a.pattern }))).toEqual([
      { teamId: s.team.teamId, agent: "build", permission: "bash", pattern: "echo *" },
    ]);
    let messages = await Session.allMessages(s.team.ctx, session.id);
    expect(asked(rec.events)).toHaveLength(1);
    expect(toolParts(messages).map((t) => (t.state.status === "completed" ? t.state.output : t.state.status))).toEqual(["hi", "again"]);
    expect(texts(messages)).toEqual(["done"]);

    // A "restart": new bus, permission service, lock and runners over the same database.
    const bus = new Bus();
    const model = script([step(bash("c3", "echo restarted")), answer("still allowed")]);
    const restarted = { team: { ...s.team, ctx: { ...s.team.ctx, bus } }, model, ...services(bus, model) };
    const after = await newSession(restarted.team);
    await run(restarted, after.session.id);
    await restarted.deps.runners.idle(after.session.id);
    messages = await Session.allMessages(restarted.team.ctx, after.session.id);
    expect(asked(after.rec.events)).toEqual([]);
    expect(toolParts(messages).map((t) => (t.state.status === "completed" ? t.state.output : t.state.status))).toEqual(["restarted"]);
    expect(texts(messages)).toEqual(["still allowed"]);
    // A command outside the stored pattern still asks.
    const other = script([step(bash("c4", "ls"))]);
    const third = { team: restarted.team, model: other, ...services(bus, other) };
    const last = await newSession(third.team);
    await run(third, last.session.id);
    const open = await nthAsk(last.rec, 1);
    expect(open).toMatchObject({ patterns: ["ls"] });
    // Aborting the session closes the open ask.
    await Prompt.abort(withActor(third.deps, third.team.ctx.actor), last.session.id);
    await third.deps.runners.idle(last.session.id);
    await until(async () => (await third.permissions.pending(third.team.ctx.actor, last.session.id)).length === 0);
    expect(await testDb().permissionRequest.findUniqueOrThrow({ where: { id: open.id } })).toMatchObject({ status: "reject" });
  });

  /** Two loops of one team and project, A echoing "one" and B "two", each then answering in text. */
  async function twoLoops() {
    const bus = new Bus();
    const team = await makeTeam({ bus, directory: projectDir() });
    const modelA = script([step(bash("a1", "echo one")), answer("A done")]);
    const modelB = script([step(bash("b1", "echo two")), answer("B done")]);
    return { bus, team, a: { team, model: modelA, ...services(bus, modelA) }, b: { team, model: modelB, ...services(bus, modelB) } };
  }

  it("always on one request resolves another request of the project pending at the same time", async () => {
    const { team, a, b } = await twoLoops();
    const sa = await newSession(team);
    const sb = await newSession(team);
    await run(a, sa.session.id);
    await run(b, sb.session.id);
    const requestA = await nthAsk(sa.rec, 1);
    const requestB = await nthAsk(sb.rec, 1);
    expect((await a.permissions.pending(team.ctx.actor, sb.session.id)).map((r) => r.id)).toEqual([requestB.id]);

    await a.permissions.reply(team.ctx.actor, { requestId: requestA.id, reply: "always" });
    await Promise.all([a.deps.runners.idle(sa.session.id), b.deps.runners.idle(sb.session.id)]);

    expect(replied(sb.rec.events)).toEqual([{ sessionId: sb.session.id, requestId: requestB.id, reply: "always" }]);
    const messagesB = await Session.allMessages(team.ctx, sb.session.id);
    expect(toolParts(messagesB).map((t) => (t.state.status === "completed" ? t.state.output : t.state.status))).toEqual(["two"]);
    expect(texts(messagesB)).toEqual(["B done"]);
    expect(texts(await Session.allMessages(team.ctx, sa.session.id))).toEqual(["A done"]);
    expect(await testDb().permissionRequest.findUniqueOrThrow({ where: { id: requestB.id } })).toMatchObject({ status: "always" });
  });

  it("always does not resolve a pending request whose session's own ruleset still says ask", async () => {
    const { bus, team, a, b } = await twoLoops();
    const sa = await newSession(team);
    const strict = await Session.create(team.ctx, { projectId: team.projectId, title: TITLE, permission: [{ permission: "bash", pattern: "*", action: "ask" }] });
    const sb = { session: strict, rec: recorder(bus, team.teamId, strict.id) };
    await run(a, sa.session.id);
    await run(b, sb.session.id);
    const requestA = await nthAsk(sa.rec, 1);
    const requestB = await nthAsk(sb.rec, 1);
    await a.permissions.reply(team.ctx.actor, { requestId: requestA.id, reply: "always" });
    await a.deps.runners.idle(sa.session.id);

    // The session's ruleset comes after the approvals: its request still waits for an answer.
    expect(replied(sb.rec.events)).toEqual([]);
    expect((await b.permissions.pending(team.ctx.actor, sb.session.id)).map((r) => r.id)).toEqual([requestB.id]);
    await b.permissions.reply(team.ctx.actor, { requestId: requestB.id, reply: "once" });
    await b.deps.runners.idle(sb.session.id);
    expect(texts(await Session.allMessages(team.ctx, sb.session.id))).toEqual(["B done"]);
  });

  it("reject: the call fails, the loop stops without another model request, no message error, session idle", async () => {
    const s = await setup([step(bash("c1", "echo hi")), answer("never asked")]);
    const { session, rec } = await newSession(s.team);
    await run(s, session.id);
    const request = await nthAsk(rec, 1);
    await s.permissions.reply(s.team.ctx.actor, { requestId: request.id, reply: "reject" });
    await s.deps.runners.idle(session.id);

    expect(s.model.doStreamCalls).toHaveLength(1);
    const messages = await Session.allMessages(s.team.ctx, session.id);
    const [tool] = toolParts(messages);
    expect(tool?.state.status).toBe("error");
    expect(tool?.state.status === "error" && tool.state.error).toMatch(/rejected permission/);
    const [info] = assistants(messages);
    expect(info?.error).toBeUndefined();
    expect(info?.time.completed).toBeDefined();
    expect((await Session.get(s.team.ctx, session.id)).status).toEqual({ type: "idle" });
    expect(rec.statuses().at(-1)).toEqual({ type: "idle" });
    expect(replied(rec.events)).toEqual([{ sessionId: session.id, requestId: request.id, reply: "reject" }]);
  });

  it("reject also fails every other pending request of the session", async () => {
    const s = await setup([step(bash("c1", "echo one"), bash("c2", "echo two")), answer("never asked")]);
    const { session, rec } = await newSession(s.team);
    await run(s, session.id);
    await nthAsk(rec, 2);
    const pending = await s.permissions.pending(s.team.ctx.actor, session.id);
    expect(pending.map((r) => r.patterns[0]).sort()).toEqual(["echo one", "echo two"]);
    const [target, other] = pending;
    if (!target || !other) throw new Error("two requests expected");
    await s.permissions.reply(s.team.ctx.actor, { requestId: target.id, reply: "reject" });
    await s.deps.runners.idle(session.id);

    expect(s.model.doStreamCalls).toHaveLength(1);
    const messages = await Session.allMessages(s.team.ctx, session.id);
    const tools = toolParts(messages);
    expect(tools.map((t) => t.state.status)).toEqual(["error", "error"]);
    for (const t of tools) expect(t.state.status === "error" && t.state.error).toMatch(/rejected permission/);
    expect(await testDb().permissionRequest.findUniqueOrThrow({ where: { id: other.id } })).toMatchObject({ status: "reject" });
    expect(replied(rec.events).map((r) => [r.requestId, r.reply])).toEqual([
      [target.id, "reject"],
      [other.id, "reject"],
    ]);
    expect(await s.permissions.pending(s.team.ctx.actor, session.id)).toEqual([]);
    expect((await Session.get(s.team.ctx, session.id)).status).toEqual({ type: "idle" });
  });

  it("reject with feedback: the tool error carries it, the model is sent it, and the loop goes on", async () => {
    const s = await setup([step(bash("c1", "echo hi")), answer("ok, I will use printf")]);
    const { session, rec } = await newSession(s.team);
    await run(s, session.id);
    const request = await nthAsk(rec, 1);
    await s.permissions.reply(s.team.ctx.actor, { requestId: request.id, reply: "reject", feedback: "  use printf instead " });
    await s.deps.runners.idle(session.id);

    const messages = await Session.allMessages(s.team.ctx, session.id);
    const [tool] = toolParts(messages);
    expect(tool?.state.status === "error" && tool.state.error).toContain("use printf instead");
    expect(s.model.doStreamCalls).toHaveLength(2);
    expect(toolResultsSent(s.model, 1)).toContain("use printf instead");
    expect(texts(messages)).toEqual(["ok, I will use printf"]);
    expect(assistants(messages).every((a) => a.error === undefined)).toBe(true);
    expect(await testDb().permissionRequest.findUniqueOrThrow({ where: { id: request.id } })).toMatchObject({ status: "reject", feedback: "use printf instead" });
  });

  it("a deny rule fails the call with an error naming the rule, without asking", async () => {
    const s = await setup([step(bash("c1", "rm -rf build")), answer("could not delete")], { configRules: fromConfig({ bash: { "rm *": "deny" } }) });
    const { session, rec } = await newSession(s.team);
    await run(s, session.id);
    await s.deps.runners.idle(session.id);

    const messages = await Session.allMessages(s.team.ctx, session.id);
    const [tool] = toolParts(messages);
    expect(tool?.state.status).toBe("error");
    const error = tool?.state.status === "error" ? tool.state.error : "";
    expect(error).toContain('permission: "bash", pattern: "rm *", action: "deny"');
    expect(error).toContain('"rm -rf build"');
    expect(asked(rec.events)).toEqual([]);
    expect(await testDb().permissionRequest.count({ where: { sessionId: session.id } })).toBe(0);
    // A denial is not a rejection by the user: the model hears about it and answers.
    expect(toolResultsSent(s.model, 1)).toContain("rm *");
    expect(texts(messages)).toEqual(["could not delete"]);
  });

  it("a tool denied outright is not offered to the model", async () => {
    const s = await setup([answer("no shell for me")], { configRules: fromConfig({ bash: "deny" }) });
    const { session } = await newSession(s.team);
    await run(s, session.id);
    await s.deps.runners.idle(session.id);
    const offered = (s.model.doStreamCalls[0]?.tools ?? []).map((t) => t.name);
    expect(offered).toContain("read");
    expect(offered).not.toContain("bash");

    // Without the rule, bash is offered.
    const plain = await setup([answer("hi")]);
    const other = await newSession(plain.team);
    await run(plain, other.session.id);
    await plain.deps.runners.idle(other.session.id);
    expect((plain.model.doStreamCalls[0]?.tools ?? []).map((t) => t.name)).toContain("bash");
  });

  it("events, pending() after a reload, and a reply from another server instance over the PostgreSQL bridge", async () => {
    const busA = new Bus();
    const busB = new Bus();
    bridges.push(await bridge(busA, databaseUrl()), await bridge(busB, databaseUrl()));
    const s = await setup([step(bash("c1", "echo across")), answer("done")], { bus: busA });
    const { session, rec } = await newSession(s.team);
    const onB: Envelope[] = [];
    busB.subscribe({ teamId: s.team.teamId, sessionId: session.id }, (e) => onB.push(e));
    await run(s, session.id);
    const request = await nthAsk(rec, 1);

    // The ask names the tool part it belongs to.
    const messages = await Session.allMessages(s.team.ctx, session.id);
    const assistant = assistants(messages)[0];
    expect(request.tool).toEqual({ messageId: assistant?.id, callId: "c1" });
    expect(request).toEqual({
      id: expect.stringMatching(/^per_/) as unknown as string,
      sessionId: session.id,
      permission: "bash",
      patterns: ["echo across"],
      always: ["echo *"],
      metadata: { command: "echo across" },
      tool: { messageId: assistant?.id, callId: "c1" },
      time: { created: expect.any(Number) as unknown as number },
    });
    const askedEvent = rec.events.find(isAsked);
    expect(askedEvent?.scope).toEqual({ teamId: s.team.teamId, sessionId: session.id });

    // Another instance: its own permission service on its own bus, same database.
    const permissionsB = new Permissions(testDb(), busB);
    expect(await permissionsB.pending(s.team.ctx.actor, session.id)).toEqual([request]);
    await permissionsB.reply(s.team.ctx.actor, { requestId: request.id, reply: "once" });
    await s.deps.runners.idle(session.id);

    const done = await Session.allMessages(s.team.ctx, session.id);
    expect(toolParts(done).map((t) => (t.state.status === "completed" ? t.state.output : t.state.status))).toEqual(["across"]);
    expect(texts(done)).toEqual(["done"]);
    const expected = { sessionId: session.id, requestId: request.id, reply: "once" };
    expect(replied(rec.events)).toEqual([expected]);
    expect(replied(onB)).toEqual([expected]);
    // The ask reached instance B too (a tab connected there sees it).
    expect(asked(onB)).toEqual([request]);
    expect(await permissionsB.pending(s.team.ctx.actor, session.id)).toEqual([]);
  });
});

describe("doom loop (integration)", () => {
  /** One step each, reading one of `files`: call ids `<prefix>1`, `<prefix>2`… */
  const reads = (prefix: string, ...files: string[]) => files.map((file, i) => step(call(`${prefix}${i + 1}`, "read", { filePath: file })));

  /** A new session of the setup, run until its first question. */
  async function firstAsk(s: Setup) {
    const { session, rec } = await newSession(s.team);
    await run(s, session.id);
    return { session, rec, request: await nthAsk(rec, 1) };
  }

  it("the 4th identical call asks doom_loop before it runs; once lets it run", async () => {
    const s = await setup([
      ...reads("r", "a.txt", "a.txt", "a.txt", "a.txt"),
      answer("read it four times"),
    ]);
    const { session, rec, request } = await firstAsk(s);
    expect(request).toMatchObject({ permission: "doom_loop", patterns: ["read"], always: ["read"], tool: { callId: "r4" } });
    expect(request.metadata).toMatchObject({ tool: "read", input: { filePath: "a.txt" }, kind: "repeat" });
    // The 4th has not run yet: three completed reads, the 4th still running.
    let parts = await persistedTools(s.team, session.id, 4);
    expect(parts.map((p) => p.state.status)).toEqual(["completed", "completed", "completed", "running"]);

    await s.permissions.reply(s.team.ctx.actor, { requestId: request.id, reply: "once" });
    await s.deps.runners.idle(session.id);
    const messages = await Session.allMessages(s.team.ctx, session.id);
    parts = toolParts(messages);
    expect(parts.map((p) => p.state.status)).toEqual(["completed", "completed", "completed", "completed"]);
    expect(parts[3]?.state.status === "completed" && parts[3].state.output).toContain("alpha");
    expect(asked(rec.events)).toHaveLength(1);
    expect(texts(messages)).toEqual(["read it four times"]);
  });

  it("an A, B, A, B, A, B cycle asks before the 7th call", async () => {
    const s = await setup([
      ...reads("c", "a.txt", "b.txt", "a.txt", "b.txt", "a.txt", "b.txt", "a.txt"),
      answer("cycled"),
    ]);
    const { session, rec, request } = await firstAsk(s);
    expect(request).toMatchObject({ permission: "doom_loop", patterns: ["read"], tool: { callId: "c7" } });
    expect(request.metadata).toMatchObject({ input: { filePath: "a.txt" }, kind: "cycle" });
    expect((await persistedTools(s.team, session.id, 7)).map((p) => p.state.status)).toEqual([
      ...Array<string>(6).fill("completed"),
      "running",
    ]);
    await s.permissions.reply(s.team.ctx.actor, { requestId: request.id, reply: "once" });
    await s.deps.runners.idle(session.id);
    const messages = await Session.allMessages(s.team.ctx, session.id);
    expect(toolParts(messages).map((p) => p.state.status)).toEqual(Array<string>(7).fill("completed"));
    expect(asked(rec.events)).toHaveLength(1);
    expect(texts(messages)).toEqual(["cycled"]);
  });
});

/**
 * The test database, with `permissionRequest.create` calls held until `gate` resolves and
 * `onCreate` run just before they go through: a request being stored at a chosen moment.
 */
function slowCreateDb(gate: Promise<unknown>, onCreate: () => void = () => undefined) {
  const db = testDb();
  const requests = new Proxy(db.permissionRequest, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (prop !== "create" || typeof value !== "function") return value;
      return async (args: unknown) => {
        await gate;
        onCreate();
        return (value as (a: unknown) => Promise<unknown>).call(target, args);
      };
    },
  });
  return new Proxy(db, { get: (target, prop, receiver) => (prop === "permissionRequest" ? requests : Reflect.get(target, prop, receiver)) });
}

describe("Permissions races (integration)", () => {
  const bashRequest = (command: string) => ({ permission: "bash", patterns: [command], always: [`${command.split(" ")[0] ?? ""} *`] });

  it("an abort that lands while the request is being stored still ends the ask and closes the request", async () => {
    const bus = new Bus();
    const team = await makeTeam({ bus });
    const session = await Session.create(team.ctx, { projectId: team.projectId, title: TITLE });
    const controller = new AbortController();
    const permissions = new Permissions(slowCreateDb(Promise.resolve(), () => controller.abort("stop")), bus);
    const ask = permissions.ask({
      teamId: team.teamId,
      projectId: team.projectId,
      sessionId: session.id,
      agent: "build",
      stack: { defaults: DEFAULTS, config: [], team: [], project: [], agent: [] },
      request: bashRequest("echo hi"),
      signal: controller.signal,
    });
    const outcome = await Promise.race([
      ask.then(
        () => "allowed",
        (error: unknown) => (error instanceof Error || error instanceof DOMException ? error.name : "unknown"),
      ),
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 2_000)),
    ]);
    expect(outcome).toBe("AbortError");
    const rows = await testDb().permissionRequest.findMany({ where: { sessionId: session.id } });
    await until(async () => (await testDb().permissionRequest.count({ where: { sessionId: session.id, status: "pending" } })) === 0);
    expect(rows).toHaveLength(1);
    expect(await permissions.pending(team.ctx.actor, session.id)).toEqual([]);
  });

  it("a request stored while an \"always\" answer is being applied is resolved by it too", async () => {
    const bus = new Bus();
    const team = await makeTeam({ bus });
    const first = await Session.create(team.ctx, { projectId: team.projectId, title: TITLE });
    const second = await Session.create(team.ctx, { projectId: team.projectId, title: TITLE });
    const permissions = new Permissions(testDb(), bus);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Instance-local service whose insert of the second request is held back.
    const slow = new Permissions(slowCreateDb(gate), bus);
    const base = { teamId: team.teamId, projectId: team.projectId, agent: "build", stack: { defaults: DEFAULTS, config: [], team: [], project: [], agent: [] }, signal: new AbortController().signal };
    const askedIds: string[] = [];
    bus.subscribe({ teamId: team.teamId }, (e) => {
      if (isAsked(e)) askedIds.push((e.payload as { request: Request }).request.id);
    });
    const one = permissions.ask({ ...base, sessionId: first.id, request: bashRequest("echo one") });
    await until(async () => askedIds.length === 1);
    // The second ask has evaluated the rules (no approval yet) and is storing its request.
    const two = slow.ask({ ...base, sessionId: second.id, request: bashRequest("echo two") });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await permissions.reply(team.ctx.actor, { requestId: askedIds[0] ?? "", reply: "always" });
    await one;
    release();
    const outcome = await Promise.race([two.then(() => "allowed"), new Promise((resolve) => setTimeout(() => resolve("still waiting"), 2_000))]);
    expect(outcome).toBe("allowed");
    expect(await permissions.pending(team.ctx.actor, second.id)).toEqual([]);
  });
});
