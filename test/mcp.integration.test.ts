import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Request as PermissionRequest } from "../server/permission/events";
import type { Part, ToolPart } from "../server/session/message";
import { type TestApp, openApp, projectAppEnv, trpcAnswer, trpcData, until, within } from "./app";
import { type Browser, joinTeam } from "./auth";
import { captureConsole } from "./console";
import { type FakeOpenAI, type FakeReply, type RecordedRequest, contentText, isTitleRequest, reply, routeByTag, startFakeOpenAI, systemOf } from "./fake-openai";
import { annInvitesBob } from "./two-teams";
import { TEST_INSTRUCTIONS, type TestMcpServer, startMcpServer } from "./mcp-server";
import { settled } from "./session-harness";

/**
 * Tool servers (MCP) per team, end to end through the real Route Handlers with real
 * sign-in cookies: an admin adds a Streamable-HTTP server (a real one, written with the
 * protocol's SDK) whose header is a team secret; a member's session calls its tools through
 * a fake OpenAI-compatible provider that records what the model is sent.
 */

const MODEL = { providerId: "compatible", modelId: "gpt-test" };
const SECRET = "mcp-header-value-7f3a9c1e5b";
const TINY = "compatible/gpt-tiny";

type ServerView = {
  id: string | null;
  name: string;
  headers: Array<{ name: string; secret?: string }>;
  status: { state: string; error?: string };
  tools: Array<{ name: string; id: string }>;
};

// Each turn makes a session workspace and runs a model step: slow on a busy machine.
describe("tool servers (integration, through HTTP)", { timeout: 90_000 }, () => {
  let fake: FakeOpenAI;
  let mcp: TestMcpServer;
  let app: TestApp;
  let ann: Browser;
  let bob: Browser;
  let carol: Browser;
  let projectId: string;
  const logged: string[] = [];
  /** Every event the bus carried (what live streams and other instances get). */
  const events: string[] = [];
  const scripts = new Map<string, FakeReply[]>();

  /** The tag of the latest user message ("[add] …"): which script answers. */
  const tagOf = (request: RecordedRequest) => {
    for (const message of [...request.body.messages].reverse()) {
      const tag = message.role === "user" ? /\[(\w+)\]/.exec(contentText(message.content))?.[1] : undefined;
      if (tag) return tag;
    }
    return undefined;
  };
  const requestsOf = (tag: string) => fake.requests.filter((request) => tagOf(request) === tag && !isTitleRequest(request));

  // Every wait of these tests is bounded, saying what did not answer (a hang under load names itself).
  const call = <T>(procedure: string, input: unknown, who: Browser) => within(`the answer of ${procedure}`, trpcAnswer<T>(app, procedure, input, who.headers));
  const data = <T>(procedure: string, input: unknown, who: Browser) => within(`the answer of ${procedure}`, trpcData<T>(app, procedure, input, who.headers));

  beforeAll(async () => {
    captureConsole(logged);
    fake = await startFakeOpenAI();
    fake.route = routeByTag({ scripts, tag: tagOf, isTitle: isTitleRequest, fallback: reply.text("done") });
    mcp = await startMcpServer({ secret: SECRET });
    app = await openApp("mcp", (dir) => {
      const config = path.join(dir, "parley.config.json");
      // gpt-tiny: a model whose context the echo server's tools take a large share of (the warning's tests).
      writeFileSync(config, JSON.stringify({ toolServers: { allowPrivateAddresses: true }, models: { [TINY]: { name: "Tiny", limit: { context: 300, output: 50 } } } }));
      return projectAppEnv(dir, { PARLEY_CONFIG: config, PARLEY_SIGNUP: "invite", OPENAI_BASE_URL: `${fake.url}/v1`, PARLEY_MODEL: "compatible/gpt-test" });
    });
    app.rt.services.bus.subscribeAll((event) => void events.push(JSON.stringify(event)));
    const { auth, teamId, ...people } = await annInvitesBob(app, "mcp");
    ({ ann, bob, projectId } = people);
    carol = await joinTeam(auth, ann, teamId, "carol@mcp.test", { role: "admin" });
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await app?.close();
    await fake?.close();
    await mcp?.close();
  });

  /** Sends `text` in a session of Bob's and runs the turn to its end, answering each question with `answer`. */
  async function turn(sessionId: string, text: string, answer: "once" | "always" | "reject" = "once", model = MODEL): Promise<PermissionRequest[]> {
    const asked: PermissionRequest[] = [];
    await data("session.prompt", { sessionId, parts: [{ type: "text", text }], model }, bob);
    await until("the turn to end", async () => {
      const pending = await data<PermissionRequest[]>("permission.pending", { sessionId }, bob);
      for (const request of pending) {
        asked.push(request);
        await data("permission.reply", { requestId: request.id, reply: answer }, bob);
      }
      // The turn is over when its runner is gone (registered before session.prompt answers). The
      // session's status is not enough: it turns "busy" a moment after the prompt is answered, so a
      // first look could see "idle", leave the question unanswered and wait for a turn that waits for it.
      return pending.length === 0 && !app.rt.services.runners.get(sessionId) ? true : undefined;
    }, 30_000);
    await settled(app.rt.services, sessionId, 30_000);
    return asked;
  }

  async function toolParts(sessionId: string): Promise<ToolPart[]> {
    const page = await data<{ messages: { parts: Part[] }[] }>("message.page", { sessionId, limit: 200 }, bob);
    return page.messages.flatMap((m) => m.parts).filter((p): p is ToolPart => p.type === "tool");
  }

  const toolCall = (name: string, args: unknown, id: string) => reply.toolCall({ id, name, pieces: [JSON.stringify(args)] });
  const newSession = async () => (await data<{ id: string }>("session.create", { projectId }, bob)).id;

  it("a member cannot add a tool server; an admin adds one whose header is a team secret, and every member sees it without the value", async () => {
    const server = { name: "echo", url: mcp.url, headers: [{ name: "Authorization", secret: "echo-token", prefix: "Bearer " }] };
    expect((await call("secret.set", { name: "echo-token", kind: "header", value: SECRET }, bob)).status).toBe(403);
    await data("secret.set", { name: "echo-token", kind: "header", value: SECRET }, ann);
    const refused = await call("mcp.save", server, bob);
    expect(refused.status).toBe(403);
    expect(await app.rt.services.db.toolServer.count()).toBe(0);
    expect((await call("mcp.save", { ...server, headers: [{ name: "Authorization", secret: "missing" }] }, carol)).status).toBe(400);
    await data("mcp.save", server, carol);
    const listed = await call<ServerView[]>("mcp.list", {}, bob);
    expect(listed.status).toBe(200);
    expect(listed.data.map((s) => [s.name, s.headers])).toEqual([["echo", [{ name: "Authorization", secret: "echo-token", prefix: "Bearer " }]]]);
    expect(listed.text).not.toContain(SECRET);
  });

  it("acceptance 1: the server's tools are listed with their schemas (refreshed by an admin, visible to members with the connection's status)", async () => {
    expect((await call("mcp.refresh", { name: "echo" }, bob)).status).toBe(403);
    const refreshed = await data<ServerView>("mcp.refresh", { name: "echo" }, carol);
    expect(refreshed.status.state).toBe("connected");
    expect(refreshed.tools.map((t) => t.id).sort()).toEqual(["echo_add", "echo_fail", "echo_picture", "echo_wait"]);
    expect(mcp.requests.every((headers) => headers.authorization === `Bearer ${SECRET}`)).toBe(true);
    const cached = await app.rt.services.db.toolServerTools.findFirstOrThrow();
    expect(JSON.stringify(cached.tools)).toContain('"required":["a","b"]');
  });

  it("acceptance 1 + 2 + 3 (ask): a call round-trips after the member's approval; the model sees <server>_<tool> with its schema and the server's instructions", async () => {
    const sessionId = await newSession();
    scripts.set("add", [toolCall("echo_add", { a: 2, b: 3 }, "call_add"), reply.text("It is 5.")]);
    const asked = await turn(sessionId, "[add] add 2 and 3");
    expect(asked.map((r) => r.permission)).toEqual(["echo_add"]);
    const [part] = await toolParts(sessionId);
    expect(part?.tool).toBe("echo_add");
    expect(part?.state.status).toBe("completed");
    if (part?.state.status === "completed") {
      expect(part.state.output).toBe("The sum is 5.");
      expect(part.state.metadata).toMatchObject({ mcp: { server: "echo", tool: "add", content: ["text"] }, untrusted: true });
    }
    expect(mcp.calls.at(-1)).toEqual({ tool: "add", args: { a: 2, b: 3 } });
    const [first, second] = requestsOf("add");
    const tool = first?.body.tools?.find((t) => t.function.name === "echo_add");
    expect(tool?.function.parameters).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
    expect(first?.body.tools?.map((t) => t.function.name)).toEqual(expect.arrayContaining(["echo_add", "echo_fail", "echo_wait", "echo_picture", "read", "bash"]));
    expect(systemOf(first)).toContain("Instructions from: tool server echo");
    expect(systemOf(first)).toContain(TEST_INSTRUCTIONS);
    expect(JSON.stringify(second?.body.messages)).toContain("The sum is 5.");
  });

  it("the server's instructions are a source of the answer, labelled \"tool server echo\", which a member opens", async () => {
    const sessionId = await newSession();
    scripts.set("sources", [reply.text("Noted.")]);
    await turn(sessionId, "[sources] hello");
    const page = await data<{ messages: Array<{ info: { id: string; role: string; instructions?: Array<{ kind: string; label: string; sha256?: string }> } }> }>("message.page", { sessionId, limit: 50 }, bob);
    const answer = page.messages.find((m) => m.info.role === "assistant")?.info;
    const source = answer?.instructions?.find((s) => s.kind === "server");
    expect(source).toMatchObject({ kind: "server", label: "tool server echo" });
    expect(source?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const opened = await data<{ kind: string; text?: string; changed?: boolean }>("instructions.open", { sessionId, messageId: answer!.id, label: "tool server echo" }, bob);
    expect(opened).toMatchObject({ kind: "server", text: TEST_INSTRUCTIONS, changed: false });
  });

  it("acceptance 1: an error result is the call's error; images and resources come back as attachments and text", async () => {
    const sessionId = await newSession();
    scripts.set("fail", [toolCall("echo_fail", { why: "no luck" }, "call_fail"), toolCall("echo_picture", {}, "call_picture"), reply.text("ok")]);
    await turn(sessionId, "[fail] try");
    const [failed, picture] = await toolParts(sessionId);
    expect(failed?.state.status).toBe("error");
    if (failed?.state.status === "error") expect(failed.state.error).toContain("It failed: no luck");
    expect(picture?.state.status).toBe("completed");
    if (picture?.state.status === "completed") {
      expect(picture.state.output).toContain("Resource memo://note:\nA note from the server.");
      expect(picture.state.attachments?.map((a) => a.mime)).toEqual(["image/png"]);
      expect(picture.state.metadata).toMatchObject({ mcp: { content: ["text", "image", "resource"] } });
    }
  });

  it("acceptance 1: an abort mid-call cancels the call on the server", async () => {
    const sessionId = await newSession();
    scripts.set("wait", [toolCall("echo_wait", {}, "call_wait"), reply.text("never")]);
    await data("session.prompt", { sessionId, parts: [{ type: "text", text: "[wait] wait" }], model: MODEL }, bob);
    const [request] = await until("the question", async () => {
      const pending = await data<PermissionRequest[]>("permission.pending", { sessionId }, bob);
      return pending.length ? pending : undefined;
    });
    await data("permission.reply", { requestId: request!.id, reply: "once" }, bob);
    await within("the tool server to receive the echo_wait call", mcp.waiting());
    const before = mcp.cancelled;
    await data("session.abort", { sessionId }, bob);
    await settled(app.rt.services, sessionId, 30_000);
    await until("the server to see the cancellation", async () => (mcp.cancelled > before ? true : undefined));
    const [part] = await toolParts(sessionId);
    expect(part?.state.status).toBe("error");
  });

  it("acceptance 1: a crashed server fails the call with a visible status, and the next call reconnects", async () => {
    await within("the tool server to stop", mcp.crash());
    const sessionId = await newSession();
    scripts.set("crash", [toolCall("echo_add", { a: 1, b: 1 }, "call_c1"), reply.text("down")]);
    await turn(sessionId, "[crash] add");
    const [down] = await toolParts(sessionId);
    expect(down?.state.status).toBe("error");
    const listed = await data<ServerView[]>("mcp.list", {}, bob);
    expect(listed[0]?.status.state).toBe("failed");
    expect(listed[0]?.status.error).toMatch(/ECONNREFUSED|fetch failed|connect/);
    await within("the tool server to start again", mcp.restart());
    scripts.set("again", [toolCall("echo_add", { a: 1, b: 1 }, "call_c2"), reply.text("up")]);
    const again = await newSession();
    await turn(again, "[again] add");
    const [up] = await toolParts(again);
    expect(up?.state.status).toBe("completed");
    if (up?.state.status === "completed") expect(up.state.output).toBe("The sum is 2.");
    expect((await data<ServerView[]>("mcp.list", {}, bob))[0]?.status.state).toBe("connected");
  });

  it("acceptance 3: a team policy deny on a server's tool holds against the member's own \"always\" approval; the model no longer sees it", async () => {
    const sessionId = await newSession();
    scripts.set("always", [toolCall("echo_add", { a: 4, b: 4 }, "call_a1"), reply.text("8")]);
    await turn(sessionId, "[always] add", "always");
    expect((await toolParts(sessionId))[0]?.state.status).toBe("completed");
    // The member's approval now answers without a question.
    scripts.set("approved", [toolCall("echo_add", { a: 1, b: 2 }, "call_a2"), reply.text("3")]);
    expect(await turn(sessionId, "[approved] add")).toEqual([]);
    expect((await call("permission.setPolicy", { rules: [{ permission: "echo_add", pattern: "*", action: "deny" }] }, bob)).status).toBe(403);
    await data("permission.setPolicy", { rules: [{ permission: "echo_add", pattern: "*", action: "deny" }] }, carol);
    const calls = mcp.calls.length;
    scripts.set("denied", [toolCall("echo_add", { a: 9, b: 9 }, "call_a3"), reply.text("no")]);
    expect(await turn(sessionId, "[denied] add")).toEqual([]);
    const denied = (await toolParts(sessionId)).find((p) => p.callId === "call_a3");
    expect(denied?.state.status).toBe("error");
    // The tool is not offered at all: a call the model makes anyway reaches nothing.
    if (denied?.state.status === "error") expect(denied.state.error).toContain("unavailable tool 'echo_add'");
    expect(mcp.calls.length).toBe(calls);
    expect(requestsOf("denied")[0]?.body.tools?.map((t) => t.function.name)).not.toContain("echo_add");
    expect(requestsOf("denied")[0]?.body.tools?.map((t) => t.function.name)).toContain("echo_fail");
    await data("permission.setPolicy", { rules: [] }, carol);
  });

  it("a warning when the tool servers' tools would take a large share of the model's context", async () => {
    const { memberContext } = await import("../server/context");
    const teamId = (await memberContext(bob.headers)).actor.teamId;
    const small = await app.rt.services.mcp.forStep(teamId, projectId, 200);
    expect(small.tools.map((t) => t.id)).toContain("echo_add");
    expect(small.warning).toMatch(/tool servers take about \d+ tokens, \d+% of the model's context/);
    expect((await app.rt.services.mcp.forStep(teamId, projectId, 1_000_000)).warning).toBeUndefined();
  });

  it("the warning shows on the Team page (against the team's default model) and on the answer of a session whose model's context the tools take much of", async () => {
    type Budget = { model?: string; contextTokens?: number; tokens: number; tools: number; warning?: string };
    const roomy = await data<Budget>("mcp.budget", {}, bob);
    expect(roomy).toMatchObject({ model: "compatible/gpt-test", tools: 4 });
    expect(roomy.tokens).toBeGreaterThan(60);
    expect(roomy.warning).toBeUndefined();
    await data("provider.setModels", { enabled: [], defaultModel: TINY, smallModel: null }, carol);
    try {
      const tight = await data<Budget>("mcp.budget", { projectId }, bob);
      expect(tight).toMatchObject({ model: TINY, contextTokens: 300, tools: 4 });
      expect(tight.warning).toMatch(/tool servers take about \d+ tokens, \d+% of the model's context/);
      const sessionId = await newSession();
      scripts.set("tiny", [reply.text("Small.")]);
      await turn(sessionId, "[tiny] hi", "once", { providerId: "compatible", modelId: "gpt-tiny" });
      const page = await data<{ messages: Array<{ info: { role: string; toolWarning?: string } }> }>("message.page", { sessionId, limit: 50 }, bob);
      expect(page.messages.find((m) => m.info.role === "assistant")?.info.toolWarning).toBe(tight.warning);
      // A roomy model's answer carries none.
      const roomySession = await newSession();
      scripts.set("roomy", [reply.text("Big.")]);
      await turn(roomySession, "[roomy] hi");
      const roomyPage = await data<{ messages: Array<{ info: { role: string; toolWarning?: string } }> }>("message.page", { sessionId: roomySession, limit: 50 }, bob);
      expect(roomyPage.messages.find((m) => m.info.role === "assistant")?.info.toolWarning).toBeUndefined();
    } finally {
      await data("provider.setModels", { enabled: [], defaultModel: null, smallModel: null }, carol);
    }
  });

  it("an admin's allow-list of a server's tools is what sessions get", async () => {
    const { memberContext } = await import("../server/context");
    const teamId = (await memberContext(bob.headers)).actor.teamId;
    const [server] = await data<ServerView[]>("mcp.list", {}, carol);
    const save = (allow: string[] | null) => data("mcp.save", { id: server!.id, name: "echo", url: mcp.url, headers: [{ name: "Authorization", secret: "echo-token", prefix: "Bearer " }], allow }, carol);
    await save(["add"]);
    expect((await app.rt.services.mcp.forStep(teamId, projectId, 1_000_000)).tools.map((t) => t.id)).toEqual(["echo_add"]);
    await save(null);
    expect((await app.rt.services.mcp.forStep(teamId, projectId, 1_000_000)).tools.map((t) => t.id).sort()).toEqual(["echo_add", "echo_fail", "echo_picture", "echo_wait"]);
  });

  it("acceptance 5: no secret in events, logs, tool parts, share pages or errors of all the flows above", async () => {
    const sessions = await app.rt.services.db.session.findMany({ select: { id: true } });
    for (const { id } of sessions) {
      const page = await call("message.page", { sessionId: id, limit: 200 }, bob);
      expect(page.text).not.toContain(SECRET);
      const shared = await data<{ share: { id: string } }>("session.share", { sessionId: id }, bob);
      const viewed = await within("the answer of share.page", trpcAnswer(app, "share.page", { shareId: shared.share.id }, new Headers()));
      expect(viewed.status).toBe(200);
      expect(viewed.text).not.toContain(SECRET);
    }
    expect(events.length).toBeGreaterThan(0);
    expect(events.join("\n")).not.toContain(SECRET);
    const payloads = await app.rt.services.db.eventPayload.findMany();
    expect(JSON.stringify(payloads)).not.toContain(SECRET);
    const parts = await app.rt.services.db.part.findMany();
    expect(JSON.stringify(parts)).not.toContain(SECRET);
    expect(JSON.stringify(await app.rt.services.db.toolServer.findMany())).not.toContain(SECRET);
    expect((await call("mcp.list", {}, carol)).text).not.toContain(SECRET);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join("\n")).not.toContain(SECRET);
    expect(JSON.stringify(fake.requests.map((r) => r.body))).not.toContain(SECRET);
  });
});
