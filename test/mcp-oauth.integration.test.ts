import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Request as PermissionRequest } from "../server/permission/events";
import type { Part, ToolPart } from "../server/session/message";
import { type TestApp, openApp, projectAppEnv, trpcAnswer, trpcData, until, within } from "./app";
import type { Browser } from "./auth";
import { captureConsole } from "./console";
import { type FakeOpenAI, isTitleRequest, reply, startFakeOpenAI } from "./fake-openai";
import { annInvitesBob } from "./two-teams";
import { type TestMcpServer, startMcpServer } from "./mcp-server";
import { settled } from "./session-harness";

/**
 * OAuth tool servers (acceptance 1 for the OAuth server, the 401 → "Connect" flow), through
 * HTTP: an owner connects a server whose authorization server (in the harness) registers
 * Parley dynamically and checks PKCE; the tokens are a team secret; an expired access token
 * is refreshed; revoked tokens make a member's call say "Connect <server>", and connecting
 * again makes it work. No token appears in events, logs, parts, share pages or lists.
 */

type View = { status: { state: string; error?: string }; tools: Array<{ id: string }> };

describe("OAuth tool servers (integration, through HTTP)", { timeout: 90_000 }, () => {
  let fake: FakeOpenAI;
  let mcp: TestMcpServer;
  let app: TestApp;
  let ann: Browser;
  let bob: Browser;
  let projectId: string;
  let callback: typeof import("../app/api/mcp/oauth/callback/route");
  const logged: string[] = [];
  const events: string[] = [];

  beforeAll(async () => {
    captureConsole(logged);
    fake = await startFakeOpenAI();
    fake.route = (request) => (isTitleRequest(request) ? reply.text("A title") : undefined);
    mcp = await startMcpServer({ secret: "unused", oauth: true });
    app = await openApp("mcpoauth", (dir) => {
      const config = path.join(dir, "parley.config.json");
      writeFileSync(config, JSON.stringify({ toolServers: { allowPrivateAddresses: true } }));
      return projectAppEnv(dir, { PARLEY_CONFIG: config, PARLEY_SIGNUP: "invite", OPENAI_BASE_URL: `${fake.url}/v1`, PARLEY_MODEL: "compatible/gpt-test" });
    });
    app.rt.services.bus.subscribeAll((event) => void events.push(JSON.stringify(event)));
    callback = await import("../app/api/mcp/oauth/callback/route");
    ({ ann, bob, projectId } = await annInvitesBob(app, "oauth"));
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await app?.close();
    await fake?.close();
    await mcp?.close();
  });

  // Every wait of these tests is bounded, saying what did not answer (a hang under load names itself).
  const data = <T>(procedure: string, input: unknown, who: Browser) => within(`the answer of ${procedure}`, trpcData<T>(app, procedure, input, who.headers));
  const answer = (procedure: string, input: unknown, headers: Headers) => within(`the answer of ${procedure}`, trpcAnswer(app, procedure, input, headers));
  const closeConnections = () => within("the tool servers' connections to close", app.rt.services.mcp.close());

  /** "Connect docs" as the Team page does it: the authorization page (which approves at once), then the callback with Ann's cookies. */
  async function connect(name = "docs", who: Browser = ann): Promise<string> {
    const started = await data<{ authorizationUrl: string }>("mcp.connect", { name, origin: "http://parley.test" }, who);
    const approved = await fetch(started.authorizationUrl, { redirect: "manual", signal: AbortSignal.timeout(15_000) });
    expect(approved.status).toBe(302);
    const back = approved.headers.get("location") ?? "";
    expect(back.startsWith("http://parley.test/api/mcp/oauth/callback?")).toBe(true);
    const done = await within("the OAuth callback to answer", callback.GET(new Request(back, { headers: who.headers })));
    expect(done.status).toBe(303);
    return done.headers.get("location") ?? "";
  }

  /** A turn of Bob's in which the model calls docs_add once; its tool part. */
  async function addTurn(a: number, b: number, tool = "docs_add", who: Browser = bob): Promise<ToolPart | undefined> {
    const sessionId = (await data<{ id: string }>("session.create", { projectId }, who)).id;
    fake.enqueue(reply.toolCall({ id: `call_${a}_${b}`, name: tool, pieces: [JSON.stringify({ a, b })] }), reply.text("done"));
    await data("session.prompt", { sessionId, parts: [{ type: "text", text: "add" }], model: { providerId: "compatible", modelId: "gpt-test" } }, who);
    await until("the turn to end", async () => {
      const pending = await data<PermissionRequest[]>("permission.pending", { sessionId }, who);
      for (const request of pending) await data("permission.reply", { requestId: request.id, reply: "once" }, who);
      // The turn is over when its runner is gone (registered before session.prompt answers). The
      // session's status is not enough: it turns "busy" a moment after the prompt is answered, so a
      // first look could see "idle", leave the question unanswered and wait for a turn that waits for it.
      return pending.length === 0 && !app.rt.services.runners.get(sessionId) ? true : undefined;
    }, 30_000);
    await settled(app.rt.services, sessionId, 30_000);
    const page = await data<{ messages: { parts: Part[] }[] }>("message.page", { sessionId }, who);
    return page.messages.flatMap((m) => m.parts).find((p): p is ToolPart => p.type === "tool");
  }

  it("before it is connected, an OAuth server's status says \"Connect docs\"; only owners and admins connect", async () => {
    await data("mcp.save", { name: "docs", url: mcp.url, oauth: true }, ann);
    const view = await data<View>("mcp.refresh", { name: "docs" }, ann);
    expect(view.status.state).toBe("unauthorized");
    expect(view.status.error).toContain("Connect docs");
    expect((await answer("mcp.connect", { name: "docs", origin: "http://parley.test" }, bob.headers)).status).toBe(403);
  });

  it("acceptance 1 (OAuth): connecting registers the client, exchanges the code with PKCE, keeps the tokens as a sealed team secret, and lists the tools", async () => {
    expect(await connect()).toBe("/team?connected=docs");
    expect(mcp.grants).toEqual(["authorization_code"]);
    const view = (await data<Array<View & { name: string }>>("mcp.list", {}, bob)).find((s) => s.name === "docs");
    expect(view?.status.state).toBe("connected");
    expect(view?.tools.map((t) => t.id)).toEqual(expect.arrayContaining(["docs_add", "docs_fail", "docs_wait"]));
    const stored = await app.rt.services.db.teamSecret.findMany({ where: { kind: "oauth" } });
    expect(stored).toHaveLength(1);
    for (const token of mcp.issued) expect(Buffer.from(stored[0]!.sealed).toString("latin1")).not.toContain(token);
  });

  it("acceptance 1 (OAuth): a member's call round-trips; an expired access token is refreshed on the way", async () => {
    const first = await addTurn(2, 3);
    expect(first?.state.status === "completed" ? first.state.output : first?.state).toBe("The sum is 5.");
    mcp.expireAccessTokens();
    await closeConnections();
    const second = await addTurn(4, 5);
    expect(second?.state.status === "completed" ? second.state.output : second?.state).toBe("The sum is 9.");
    expect(mcp.grants).toContain("refresh_token");
  });

  it("acceptance 1 (401 → reconnect): revoked tokens make the call say \"Connect docs\"; connecting again makes it work", async () => {
    mcp.revokeAll();
    await closeConnections();
    const refused = await addTurn(1, 1);
    expect(refused?.state.status).toBe("error");
    if (refused?.state.status === "error") expect(refused.state.error).toContain("Connect docs");
    expect((await data<Array<View & { name: string }>>("mcp.list", {}, bob)).find((s) => s.name === "docs")?.status.state).toBe("unauthorized");
    await connect();
    const again = await addTurn(6, 1);
    expect(again?.state.status === "completed" ? again.state.output : again?.state).toBe("The sum is 7.");
  });

  it("a server connected per member: each member connects their own account; a member without tokens is asked to connect", async () => {
    await data("mcp.save", { name: "mine", url: mcp.url, oauth: true, oauthPerMember: true }, ann);
    // Bob, a member, connects his own account; the tools are listed with his tokens.
    const grants = mcp.grants.length;
    expect(await connect("mine", bob)).toBe("/team?connected=mine");
    expect(mcp.grants.slice(grants)).toEqual(["authorization_code"]);
    expect((await data<Array<View & { name: string }>>("mcp.list", {}, bob)).find((s) => s.name === "mine")?.status.state).toBe("connected");
    const his = await addTurn(3, 4, "mine_add", bob);
    expect(his?.state.status === "completed" ? his.state.output : his?.state).toBe("The sum is 7.");
    // Ann has not connected hers: her session's call asks her to.
    const hers = await addTurn(1, 2, "mine_add", ann);
    expect(hers?.state.status).toBe("error");
    if (hers?.state.status === "error") expect(hers.state.error).toContain("Connect mine: this tool server needs your own authorization");
    const stored = await app.rt.services.db.teamSecret.findMany({ where: { kind: "oauth" }, select: { name: true, updatedById: true } });
    expect(stored).toHaveLength(2);
    expect(stored.map((s) => s.updatedById)).toContain(bob.userId);
    // A member cannot connect the team's own (shared) server.
    expect((await answer("mcp.connect", { name: "docs", origin: "http://parley.test" }, bob.headers)).status).toBe(403);
  });

  it("acceptance 5: no OAuth token in events, logs, tool parts, share pages or lists", async () => {
    const tokens = mcp.issued;
    expect(tokens.length).toBeGreaterThan(0);
    const texts = [events.join("\n"), logged.join("\n"), JSON.stringify(await app.rt.services.db.part.findMany()), (await answer("mcp.list", {}, ann.headers)).text, (await answer("secret.list", undefined, ann.headers)).text];
    for (const { id } of await app.rt.services.db.session.findMany({ select: { id: true } })) {
      const shared = await data<{ share: { id: string } }>("session.share", { sessionId: id }, bob);
      texts.push((await answer("share.page", { shareId: shared.share.id }, new Headers())).text);
    }
    for (const token of tokens) for (const text of texts) expect(text).not.toContain(token);
  });
});
