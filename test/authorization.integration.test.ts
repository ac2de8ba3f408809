import { mkdirSync } from "node:fs";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Id from "../server/id";
import { Instructions } from "../server/instructions";
import { Project } from "../server/project";
import { Secrets } from "../server/secrets";
import { Session } from "../server/session";
import * as TeamCommands from "../server/command/command";
import { type TestApp, allProcedures, openApp, type SessionEvents, type TeamEvents, type ShareEvents } from "./app";
import { type Browser, signUp } from "./auth";
import { seedTurns } from "./fixtures";

/**
 * Authorization across the whole transport: team A's sessions, messages,
 * shares, projects and permission requests, reached by guessing their ids, through the
 * real tRPC Route Handler, the real SSE Route Handlers and the proxy, with real sign-in
 * cookies. Every procedure of the router is listed below, so a new one fails this test
 * until it says what a stranger may do with it.
 */

/** A version id nobody made: the refusal comes before it is looked up. */
const VERSION = Id.ascending("version");

type ProxyModule = typeof import("../proxy");

interface Fixture {
  teamA: string;
  userA: string;
  projectA: string;
  /** A project of team A inside the projects root. */
  appDirA: string;
  sessionA: string;
  childA: string;
  messageA: string;
  partA: string;
  shareA: string;
  requestA: string;
  approvalA: string;
  /** The answer of sessionA's turn, whose prompt held the team's instructions. */
  answerA: string;
  /** A tool server of team A's project. */
  toolServerA: string;
}

/**
 * What someone of another team gets: "denied" — 403 or 404, nothing done; "own" — only
 * their own team's data (a 200 without any of A's ids, or a refusal); "refused" — an
 * error status (a conflict or invalid input), nothing done; "public" — the share link,
 * for anyone who holds it.
 */
type Outcome = "denied" | "own" | "refused" | "public";
/** Team A's secret: its name and value never reach another team. */
const SECRET_NAME_A = "alice-deploy-token";
const SECRET_VALUE_A = "ghp_aliceDeployValue0123456789";
/** Team A's instructions: never read by another team. */
const TEAM_RULES_A = "Alice's team rule: deploy on Fridays";
const PROJECT_RULES_A = "Alice's project rule: tabs";
/** Team A's tool server (of its project): another team never sees or changes it. */
const TOOL_SERVER_A = "alice-tools";
const CASES: Record<string, { input: (f: Fixture) => unknown; other: Outcome }> = {
  "session.list": { input: (f) => ({ parentId: f.sessionA, projectId: f.projectA }), other: "own" },
  "session.get": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.children": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.create": { input: (f) => ({ projectId: f.projectA, parentId: f.sessionA }), other: "denied" },
  "session.update": { input: (f) => ({ sessionId: f.sessionA, patch: { title: "Taken over" } }), other: "denied" },
  "session.remove": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.fork": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.touch": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.share": { input: (f) => ({ sessionId: f.childA }), other: "denied" },
  "session.unshare": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.prompt": { input: (f) => ({ sessionId: f.sessionA, parts: [{ type: "text", text: "run rm -rf ." }] }), other: "denied" },
  "session.abort": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.retryNow": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.stopRetrying": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.compact": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.revert": { input: (f) => ({ sessionId: f.sessionA, messageId: f.messageA }), other: "denied" },
  "session.unrevert": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "session.rerun": { input: (f) => ({ sessionId: f.sessionA, messageId: f.messageA, text: "run rm -rf ." }), other: "denied" },
  "session.versions": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  // The session is checked first: another team's member learns nothing of its versions.
  "session.switchVersion": { input: (f) => ({ sessionId: f.sessionA, versionId: VERSION }), other: "denied" },
  "session.files": { input: (f) => ({ sessionId: f.sessionA, query: "" }), other: "denied" },
  "message.page": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "message.get": { input: (f) => ({ sessionId: f.sessionA, messageId: f.messageA }), other: "denied" },
  "message.part": { input: (f) => ({ sessionId: f.sessionA, partId: f.partA }), other: "denied" },
  "message.diff": { input: (f) => ({ sessionId: f.sessionA, messageId: f.messageA }), other: "denied" },
  "message.cancelQueued": { input: (f) => ({ sessionId: f.sessionA, messageId: f.messageA }), other: "denied" },
  "project.list": { input: () => undefined, other: "own" },
  "project.root": { input: () => undefined, other: "own" },
  "team.current": { input: () => undefined, other: "own" },
  "project.create": { input: (f) => ({ directory: f.appDirA }), other: "refused" },
  "project.remove": { input: (f) => ({ projectId: f.projectA }), other: "denied" },
  // Another team's admin: a clone from A's folder (a local remote) and a new folder where A's is are refused.
  "project.clone": { input: (f) => ({ url: `file://${f.appDirA}` }), other: "refused" },
  "project.createEmpty": { input: (f) => ({ folder: path.basename(f.appDirA) }), other: "refused" },
  "project.branches": { input: (f) => ({ projectId: f.projectA }), other: "denied" },
  "project.fetch": { input: (f) => ({ projectId: f.projectA }), other: "denied" },
  "project.setDefaultBranch": { input: (f) => ({ projectId: f.projectA, branch: "main" }), other: "denied" },
  "permission.pending": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "permission.reply": { input: (f) => ({ requestId: f.requestA, reply: "always" }), other: "denied" },
  "permission.policy": { input: (f) => ({ projectId: f.projectA }), other: "denied" },
  "permission.setPolicy": { input: (f) => ({ projectId: f.projectA, rules: [{ permission: "*", pattern: "*", action: "allow" }] }), other: "denied" },
  "permission.approvals": { input: (f) => ({ projectId: f.projectA }), other: "own" },
  "permission.canBypassPolicy": { input: () => undefined, other: "own" },
  "permission.revoke": { input: (f) => ({ approvalId: f.approvalA }), other: "denied" },
  "model.list": { input: () => undefined, other: "own" },
  "dashboard.list": { input: (f) => ({ projectId: f.projectA, authorId: f.userA, archived: "all" }), other: "own" },
  "dashboard.authors": { input: () => undefined, other: "own" },
  // sessionA has a pending question: another team's dashboard never lists it.
  "dashboard.waiting": { input: () => undefined, other: "own" },
  "sidebar.recent": { input: () => ({}), other: "own" },
  "presence.list": { input: () => undefined, other: "own" },
  "presence.beat": { input: (f) => ({ sessionId: f.sessionA, client: "stranger-tab-1" }), other: "denied" },
  // Tabs are the acting member's own: a leave naming another team's session changes nothing.
  "presence.leave": { input: (f) => ({ sessionId: f.sessionA, client: "stranger-tab-1" }), other: "own" },
  "search.sessions": { input: () => ({ query: "secret plans", archived: "all" }), other: "own" },
  "share.mode": { input: () => undefined, other: "own" },
  "share.listShares": { input: () => ({}), other: "own" },
  "share.page": { input: (f) => ({ shareId: f.shareA }), other: "public" },
  "share.diff": { input: (f) => ({ shareId: f.shareA, messageId: f.messageA }), other: "public" },
  "secret.list": { input: () => undefined, other: "own" },
  // Sets the caller's own team's secret of another name (A's name is never sent).
  "secret.set": { input: () => ({ name: "own-ci-token", kind: "git-token", value: "own-team-value-0123" }), other: "own" },
  "secret.remove": { input: () => ({ name: SECRET_NAME_A }), other: "denied" },
  "workspace.status": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "workspace.diff": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "workspace.draftMessage": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "workspace.commit": { input: (f) => ({ sessionId: f.sessionA, message: "Taken over" }), other: "denied" },
  "workspace.push": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "workspace.merge": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "workspace.update": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "workspace.patch": { input: (f) => ({ sessionId: f.sessionA, kind: "diff" }), other: "denied" },
  "workspace.usage": { input: () => undefined, other: "own" },
  "instructions.get": { input: (f) => ({ projectId: f.projectA }), other: "denied" },
  "instructions.set": { input: (f) => ({ projectId: f.projectA, text: "Taken over" }), other: "denied" },
  "instructions.open": { input: (f) => ({ sessionId: f.sessionA, messageId: f.answerA, label: "team" }), other: "denied" },
  "session.command": { input: (f) => ({ sessionId: f.sessionA, command: "init", arguments: "run rm -rf ." }), other: "denied" },
  "session.shell": { input: (f) => ({ sessionId: f.sessionA, command: "rm -rf ." }), other: "denied" },
  "command.list": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  "command.teamList": { input: () => undefined, other: "own" },
  "command.teamSet": { input: () => ({ name: "own-command", template: "Say hi" }), other: "own" },
  "command.teamRemove": { input: () => ({ name: "alice-command" }), other: "denied" },
  "agent.list": { input: (f) => ({ sessionId: f.sessionA }), other: "denied" },
  // A team's providers, models and spending: only ever the caller's own team's.
  "provider.overview": { input: () => undefined, other: "own" },
  "provider.setKey": { input: () => ({ provider: "anthropic", key: "sk-ant-own-team-0123" }), other: "own" },
  "provider.removeKey": { input: () => ({ provider: "google" }), other: "own" },
  "provider.test": { input: () => ({ provider: "google" }), other: "own" },
  "provider.setModels": { input: () => ({ enabled: [], defaultModel: null, smallModel: null }), other: "own" },
  "provider.setLimits": { input: () => ({ team: null, member: null }), other: "own" },
  "provider.spending": { input: () => undefined, other: "own" },
  "mcp.list": { input: (f) => ({ projectId: f.projectA }), other: "denied" },
  "mcp.save": { input: (f) => ({ projectId: f.projectA, name: "taken-over", url: "https://tools.example.com/mcp" }), other: "denied" },
  "mcp.remove": { input: (f) => ({ id: f.toolServerA }), other: "denied" },
  "mcp.refresh": { input: (f) => ({ projectId: f.projectA, name: TOOL_SERVER_A }), other: "denied" },
  "mcp.connect": { input: (f) => ({ projectId: f.projectA, name: TOOL_SERVER_A, origin: "http://parley.test" }), other: "denied" },
  "mcp.budget": { input: (f) => ({ projectId: f.projectA }), other: "denied" },
};

const procedures = allProcedures();

describe("authorization across teams (integration)", () => {
  let app: TestApp;
  let dir: string;
  let sessionEvents: SessionEvents;
  let teamEvents: TeamEvents;
  let shareEvents: ShareEvents;
  let proxy: ProxyModule;
  let rt: Awaited<ReturnType<typeof import("../server/runtime")["runtime"]>>;
  let alice: Browser;
  let bob: Browser;
  let f: Fixture;
  const anonymous = new Headers();

  beforeAll(async () => {
    app = await openApp("authz", (folder) => {
      mkdirSync(path.join(folder, "projects", "a-app"), { recursive: true });
      return {
        PARLEY_DATA_DIR: path.join(folder, "data"),
        PARLEY_PROJECT_DIR: path.join(folder, "default"),
        PARLEY_PROJECTS_ROOT: path.join(folder, "projects"),
        PARLEY_SIGNUP: "open",
      };
    });
    dir = app.dir;
    sessionEvents = await import("../app/api/sessions/[sessionId]/events/route");
    teamEvents = await import("../app/api/teams/[teamId]/events/route");
    shareEvents = await import("../app/api/share/[shareId]/events/route");
    proxy = await import("../proxy");
    const { memberContext } = await import("../server/context");
    const { getAuth } = await import("../server/auth/instance");
    rt = app.rt;
    const auth = await getAuth();

    alice = await signUp(auth, "alice@a.test", "Alice");
    bob = await signUp(auth, "bob@b.test", "Bob");
    const a = await memberContext(alice.headers);
    const [projectA] = await Project.list(a);
    const appA = await Project.create(a, { directory: "a-app" }, { root: path.join(dir, "projects") });
    const sessionA = await Session.create(a, { projectId: projectA!.id, title: "Alice's secret plans" });
    const childA = await Session.create(a, { projectId: projectA!.id, parentId: sessionA.id });
    const [turn] = await seedTurns(a, sessionA.id, 1);
    const share = await Session.share(a, sessionA.id);
    await Secrets.set(a, { name: SECRET_NAME_A, kind: "git-token", value: SECRET_VALUE_A });
    await Instructions.set(a, { text: TEAM_RULES_A });
    await Instructions.set(a, { projectId: projectA!.id, text: PROJECT_RULES_A });
    const answer = await rt.services.db.message.findUniqueOrThrow({ where: { id: turn!.assistant.id } });
    const recorded = [{ kind: "team", label: "team", bytes: TEAM_RULES_A.length, sha256: "0".repeat(64) }];
    await rt.services.db.message.update({ where: { id: answer.id }, data: { data: { ...(answer.data as Record<string, unknown>), instructions: recorded } } });
    await TeamCommands.teamSet(a, { name: "alice-command", template: "Alice's secret plans" });
    const requestA = Id.ascending("permission");
    await rt.services.db.permissionRequest.create({
      data: { id: requestA, teamId: a.actor.teamId, sessionId: sessionA.id, projectId: projectA!.id, agent: "build", permission: "bash", patterns: ["rm *"], always: ["rm *"], metadata: {} },
    });
    const approvalA = Id.ascending("approval");
    await rt.services.db.permissionApproval.create({
      data: { id: approvalA, teamId: a.actor.teamId, projectId: projectA!.id, agent: "build", permission: "bash", pattern: "git status *", grantedById: a.actor.userId },
    });
    await rt.services.db.project.update({ where: { id: projectA!.id }, data: { permission: [{ permission: "bash", pattern: "*", action: "deny" }] } });
    const toolServerA = Id.ascending("toolServer");
    await rt.services.db.toolServer.create({
      data: { id: toolServerA, teamId: a.actor.teamId, scope: projectA!.id, projectId: projectA!.id, name: TOOL_SERVER_A, type: "remote", url: "https://alice-tools.example.com/mcp", enabled: false },
    });
    f = {
      teamA: a.actor.teamId,
      userA: a.actor.userId,
      projectA: projectA!.id,
      appDirA: appA.directory,
      sessionA: sessionA.id,
      childA: childA.id,
      messageA: turn!.user.id,
      partA: turn!.parts[0]!.id,
      shareA: share.share!.url.split("/").at(-1)!,
      requestA,
      approvalA,
      answerA: turn!.assistant.id,
      toolServerA,
    };
  });
  afterAll(async () => {
    await app?.close();
  });

  const call = (procedure: string, input: unknown, headers: Headers) => app.call(procedure, input, headers);

  /** Every id of team A that must never reach someone else. */
  const secrets = () => [f.teamA, f.userA, f.projectA, f.sessionA, f.childA, f.messageA, f.partA, f.shareA, f.requestA, f.approvalA, "Alice's secret plans", "alice@a.test", "git status *", TOOL_SERVER_A, "alice-tools.example.com", SECRET_NAME_A, SECRET_VALUE_A, TEAM_RULES_A, PROJECT_RULES_A];

  it("lists every procedure of the router", () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(procedures).sort());
  });

  it("the owner can read everything the cases name (so a refusal below is about the caller, not the input)", async () => {
    for (const [name, c] of Object.entries(CASES)) {
      if (procedures[name]!._def.type !== "query") continue;
      const res = await call(name, c.input(f), alice.headers);
      expect(res.status, `${name}: ${res.text}`).toBe(200);
    }
  });

  it("another team's member gets forbidden / not found for every procedure on team A's things, and learns nothing", async () => {
    for (const [name, c] of Object.entries(CASES)) {
      const res = await call(name, c.input(f), bob.headers);
      const where = `${name} → ${res.status} ${res.text.slice(0, 300)}`;
      switch (c.other) {
        case "denied":
          expect([403, 404], where).toContain(res.status);
          break;
        case "refused":
          expect([400, 403, 404, 409], where).toContain(res.status);
          break;
        case "own":
          expect([200, 403, 404], where).toContain(res.status);
          break;
        case "public":
          expect(res.status, where).toBe(200);
          continue;
      }
      // An error may name the id the caller sent; nothing else of A's may come back.
      const sent = JSON.stringify(c.input(f) ?? null);
      for (const secret of secrets().filter((secret) => !sent.includes(secret))) expect(res.text, `${where} leaks ${secret}`).not.toContain(secret);
    }
  });

  it("nothing of team A changed", async () => {
    const { memberContext } = await import("../server/context");
    const a = await memberContext(alice.headers);
    const session = await Session.get(a, f.sessionA);
    expect(session.title).toBe("Alice's secret plans");
    expect(session.share?.url).toContain(f.shareA);
    expect((await Session.children(a, f.sessionA)).map((s) => s.id)).toEqual([f.childA]);
    expect((await Session.messages(a, f.sessionA)).messages).toHaveLength(2);
    expect((await rt.services.db.permissionRequest.findUniqueOrThrow({ where: { id: f.requestA } })).status).toBe("pending");
    expect((await Project.list(a)).map((p) => p.id)).toContain(f.projectA);
    expect(await rt.services.db.project.count({ where: { directory: f.appDirA } })).toBe(1);
    expect(await rt.services.db.session.count({ where: { teamId: a.actor.teamId } })).toBe(2);
    expect(await rt.services.db.permissionApproval.count({ where: { id: f.approvalA } })).toBe(1);
    expect((await rt.services.db.project.findUniqueOrThrow({ where: { id: f.projectA } })).permission).toEqual([{ permission: "bash", pattern: "*", action: "deny" }]);
    expect(await Secrets.reveal(rt.services, f.teamA, SECRET_NAME_A)).toBe(SECRET_VALUE_A);
    expect((await rt.services.db.project.findUniqueOrThrow({ where: { id: f.projectA } })).instructions).toBe(PROJECT_RULES_A);
    expect((await TeamCommands.teamList(a)).map((c) => c.name)).toEqual(["alice-command"]);
    expect((await Secrets.list(a)).map((secret) => secret.name)).toEqual([SECRET_NAME_A]);
  });

  it("without a sign-in every procedure but the share page is refused with 401, mutations included", async () => {
    for (const [name, c] of Object.entries(CASES)) {
      const res = await call(name, c.input(f), anonymous);
      if (c.other === "public") expect(res.status, `${name}: ${res.text}`).toBe(200);
      else expect(res.status, `${name}: ${res.text}`).toBe(401);
    }
    // A forged cookie is no sign-in either.
    const forged = new Headers({ cookie: "parley.session_token=made-up.signature" });
    expect((await call("session.get", { sessionId: f.sessionA }, forged)).status).toBe(401);
  });

  it("SSE: another team's member gets 404 for team A's session and team streams, nobody signed in gets 401, the owner streams", async () => {
    const sessionStream = (sessionId: string, headers: Headers, signal?: AbortSignal) =>
      sessionEvents.GET(new Request(`http://parley.test/api/sessions/${sessionId}/events`, { headers, signal }), { params: Promise.resolve({ sessionId }) });
    const teamStream = (teamId: string, headers: Headers, signal?: AbortSignal) =>
      teamEvents.GET(new Request(`http://parley.test/api/teams/${teamId}/events`, { headers, signal }), { params: Promise.resolve({ teamId }) });

    for (const res of [await sessionStream(f.sessionA, bob.headers), await sessionStream(f.childA, bob.headers), await teamStream(f.teamA, bob.headers)]) {
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain("Alice");
    }
    for (const res of [await sessionStream(f.sessionA, anonymous), await teamStream(f.teamA, anonymous)]) {
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: "UNAUTHORIZED" } });
    }
    const abort = new AbortController();
    const [mine, team] = [await sessionStream(f.sessionA, alice.headers, abort.signal), await teamStream(f.teamA, alice.headers, abort.signal)];
    expect([mine.status, team.status]).toEqual([200, 200]);
    abort.abort();
    await Promise.all([mine.body?.cancel(), team.body?.cancel()]);
  });

  it("a share link's viewer reads the shared session and its live stream without signing in, and nothing more", async () => {
    const abort = new AbortController();
    const live = await shareEvents.GET(new Request(`http://parley.test/api/share/${f.shareA}/events`, { signal: abort.signal }), { params: Promise.resolve({ shareId: f.shareA }) });
    expect(live.status).toBe(200);
    abort.abort();
    await live.body?.cancel();
    const page = await call("share.page", { shareId: f.shareA }, anonymous);
    expect(page.text).toContain("Alice's secret plans");
    // The session id is not the share id: guessing it gets nothing.
    expect((await call("share.page", { shareId: f.sessionA }, anonymous)).status).toBeGreaterThanOrEqual(400);
    const unknown = await shareEvents.GET(new Request(`http://parley.test/api/share/shr_nope/events`), { params: Promise.resolve({ shareId: "shr_nope" }) });
    expect([400, 404]).toContain(unknown.status);
  });

  it("the proxy sends signed-out page requests to sign-in; share links, sign-in and better-auth stay open; API routes refuse signed-out calls themselves", async () => {
    const visit = (pathname: string, cookie?: string) =>
      proxy.proxy(new NextRequest(`http://parley.test${pathname}`, { headers: cookie ? { cookie } : {} }));
    for (const page of ["/", "/sessions/ses_x", "/dashboard", "/shares", "/team", "/welcome", "/anything-new"]) {
      const res = visit(page);
      expect(res.status, page).toBe(307);
      const location = new URL(res.headers.get("location")!);
      expect(location.pathname).toBe("/sign-in");
      if (page !== "/") expect(location.searchParams.get("next")).toBe(page);
    }
    // The proxy does not run for API routes (its matcher leaves them out): each answers 401 itself.
    const matcher = new RegExp(`^${proxy.config.matcher[0] ?? ""}$`);
    for (const api of ["/api/sessions/ses_x/events", "/api/teams/tem_x/events", "/api/trpc/session.prompt", "/api/other"]) expect(matcher.test(api), api).toBe(false);
    for (const page of ["/", "/sessions/ses_x", "/share/shr_x", "/sign-in"]) expect(matcher.test(page), page).toBe(true);
    const signedOut = [
      await sessionEvents.GET(new Request("http://parley.test/api/sessions/ses_x/events"), { params: Promise.resolve({ sessionId: "ses_x" }) }),
      await teamEvents.GET(new Request("http://parley.test/api/teams/tem_x/events"), { params: Promise.resolve({ teamId: "tem_x" }) }),
    ];
    for (const res of signedOut) {
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: "UNAUTHORIZED" } });
    }
    for (const open of ["/share/shr_x", "/sign-in", "/sign-up", "/invite/inv_x"]) {
      const res = visit(open);
      expect(res.status, open).toBe(200);
      expect(res.headers.get("x-middleware-next"), open).toBe("1");
    }
    // With a cookie the request goes on (the server then checks it for real).
    expect(visit("/team", "parley.session_token=abc.def").headers.get("x-middleware-next")).toBe("1");
  });
});
