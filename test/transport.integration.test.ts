import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../server/db/client";
import * as Id from "../server/id";
import { type Context, Session } from "../server/session";
import { Project } from "../server/project";
import { appRouter } from "../server/trpc/router";
import { type OwnDatabase, makeTeam, ownDatabase, testDb, type TeamFixture } from "./db";
import { signUp } from "./auth";
import { seedTurns } from "./fixtures";
import { sseReader } from "./sse";

/** Transport error mapping, through real HTTP requests and responses. */

describe("tRPC over HTTP (integration)", () => {
  let team: TeamFixture;
  beforeAll(async () => {
    team = await makeTeam();
  });

  async function call(procedure: string, input: unknown, method: "GET" | "POST" = "GET", ctx: Context = team.ctx) {
    const base = `http://parley.test/api/trpc/${procedure}`;
    const req =
      method === "GET"
        ? new Request(`${base}?input=${encodeURIComponent(JSON.stringify(input))}`)
        : new Request(base, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(input) });
    const res = await fetchRequestHandler({
      endpoint: "/api/trpc",
      req,
      router: appRouter,
      createContext: () => ctx,
    });
    const body = (await res.json()) as {
      result?: { data: unknown };
      error?: { message: string; data: { code: string; httpStatus: number; parleyCode?: string; issues?: unknown[]; stack?: string } };
    };
    return { status: res.status, body };
  }

  it("answers a valid query with 200 and the data", async () => {
    const info = await Session.create(team.ctx, { projectId: team.projectId, title: "Over HTTP" });
    const { status, body } = await call("session.get", { sessionId: info.id });
    expect(status).toBe(200);
    expect(body.result?.data).toEqual(info);
  });

  it("maps a bad id prefix to 400 BAD_REQUEST", async () => {
    const { status, body } = await call("session.get", { sessionId: Id.ascending("message") });
    expect(status).toBe(400);
    expect(body.error?.data.code).toBe("BAD_REQUEST");
    expect(body.error?.message).toContain("ses_");
  });

  it("maps an unknown session to 404 NOT_FOUND", async () => {
    const missing = Id.descending("session");
    const { status, body } = await call("session.get", { sessionId: missing });
    expect(status).toBe(404);
    expect(body.error?.data).toMatchObject({ code: "NOT_FOUND", parleyCode: "NOT_FOUND" });
    expect(body.error?.message).toContain(missing);
    expect((await call("session.touch", { sessionId: missing }, "POST")).status).toBe(404);
  });

  it("maps an oversize title to 400", async () => {
    const info = await Session.create(team.ctx, { projectId: team.projectId });
    const update = await call("session.update", { sessionId: info.id, patch: { title: "x".repeat(201) } }, "POST");
    expect(update.status).toBe(400);
    expect(update.body.error?.data.code).toBe("BAD_REQUEST");
    expect(update.body.error?.message).toContain("200");
    const create = await call("session.create", { projectId: team.projectId, title: "y".repeat(201) }, "POST");
    expect(create.status).toBe(400);
    expect((await Session.get(team.ctx, info.id)).title).toBe(info.title);
  });

  it("answers an unexpected error with 500 and a generic message, not the internal one", async () => {
    const unreachable = createDb("postgresql://parley:s3cret-password@127.0.0.1:1/nowhere", { max: 1 });
    try {
      const { status, body } = await call("session.get", { sessionId: Id.descending("session") }, "GET", { ...team.ctx, db: unreachable });
      expect(status).toBe(500);
      expect(body.error?.data.code).toBe("INTERNAL_SERVER_ERROR");
      expect(body.error?.data.parleyCode).toBeUndefined();
      expect(body.error?.message).toBe("internal error");
      // tRPC adds data.stack outside production only (NODE_ENV); nothing else may carry the internals.
      const { stack: _stack, ...data } = body.error?.data ?? { code: "" };
      expect(JSON.stringify({ ...body.error, data })).not.toMatch(/127\.0\.0\.1|s3cret|findUnique|prisma/i);
    } finally {
      await unreachable.$disconnect();
    }
  });

  it("maps a corrupt part row to 500 with parleyCode CORRUPT and the row named", async () => {
    const info = await Session.create(team.ctx, { projectId: team.projectId });
    const [turn] = await seedTurns(team.ctx, info.id, 1);
    const partId = Id.ascending("part");
    await testDb().part.create({ data: { id: partId, messageId: turn!.user.id, sessionId: info.id, type: "text", data: { text: 42 } } });
    const { status, body } = await call("message.part", { sessionId: info.id, partId });
    expect(status).toBe(500);
    expect(body.error?.data.parleyCode).toBe("CORRUPT");
    expect(body.error?.message).toContain(`Part row ${partId}`);
    // The page still loads, reporting the row.
    const page = await call("message.page", { sessionId: info.id });
    expect(page.status).toBe(200);
    expect((page.body.result?.data as { corrupt: { id: string }[] }).corrupt.map((c) => c.id)).toEqual([partId]);
  });
});

type SessionRoute = typeof import("../app/api/sessions/[sessionId]/events/route");
type TeamRoute = typeof import("../app/api/teams/[teamId]/events/route");
type RuntimeModule = typeof import("../server/runtime");
type ContextModule = typeof import("../server/context");
type AuthModule = typeof import("../server/auth/instance");


describe("SSE Route Handlers (integration)", () => {
  let dir: string;
  let sessionRoute: SessionRoute;
  let teamRoute: TeamRoute;
  let rt: Awaited<ReturnType<RuntimeModule["runtime"]>>;
  let context: ContextModule;
  let auth: AuthModule;
  /** The first user of the runtime's database, signed in: owner of its first team and default project. */
  let member: { headers: Headers; ctx: Awaited<ReturnType<ContextModule["memberContext"]>>; projectId: string };

  let own: OwnDatabase;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "parley-sse-"));
    // The process runtime recovers and sweeps every session of its database at boot:
    // give it a database of its own so it cannot touch other test files' sessions.
    own = await ownDatabase("sse");
    // The routes build their context from the process runtime: configure it before loading them.
    process.env.DATABASE_URL = own.url;
    process.env.PARLEY_PROJECT_DIR = path.join(dir, "project");
    process.env.PARLEY_DATA_DIR = path.join(dir, "data");
    sessionRoute = await import("../app/api/sessions/[sessionId]/events/route");
    teamRoute = await import("../app/api/teams/[teamId]/events/route");
    context = await import("../server/context");
    auth = await import("../server/auth/instance");
    rt = await (await import("../server/runtime")).runtime();
    const browser = await signUp(await auth.getAuth(), "owner@sse.test");
    const ctx = await context.memberContext(browser.headers);
    const [project] = await Project.list(ctx);
    member = { headers: browser.headers, ctx, projectId: project!.id };
  });
  afterAll(async () => {
    await rt?.bridge.close();
    await rt?.services.lock.close();
    await rt?.services.db.$disconnect();
    await own?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Another team in the runtime's database. */
  const otherTeam = () => makeTeam({ db: rt.services.db, bus: rt.services.bus });

  const open = (sessionId: string, signal?: AbortSignal, headers: Headers = member.headers) =>
    sessionRoute.GET(new Request(`http://parley.test/api/sessions/${sessionId}/events`, { signal, headers }), { params: Promise.resolve({ sessionId }) });

  it("answers a bad id with 400 and an unknown session with 404, as JSON", async () => {
    const bad = await open("msg_nope");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "INVALID" } });
    const missing = Id.descending("session");
    const unknown = await open(missing);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "NOT_FOUND", message: expect.stringContaining(missing) } });
  });

  it("does not stream another team's session", async () => {
    const other = await otherTeam();
    const foreign = await Session.create(other.ctx, { projectId: other.projectId });
    const res = await open(foreign.id);
    expect(res.status).toBe(404);
  });

  it("streams the session state first, then live events, and unsubscribes when the client goes away", async () => {
    const { ctx, projectId } = member;
    const info = await Session.create(ctx, { projectId });
    const subscribersBefore = rt.services.bus.subscriberCount;
    const abort = new AbortController();
    const res = await open(info.id, abort.signal);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(rt.services.bus.subscriberCount).toBe(subscribersBefore + 1);

    const stream = sseReader(res);
    await stream.until(() => stream.events.length >= 1, "the first event");
    expect(stream.events[0]).toMatchObject({ name: "session.updated", payload: { info: { id: info.id, title: info.title } } });

    await Session.update(ctx, info.id, { title: "Renamed live" });
    await stream.until(() => stream.events.some((e) => e.name === "session.updated" && (e.payload as { info: { title: string } }).info.title === "Renamed live"), "the live update");

    abort.abort();
    await stream.pump;
    expect(stream.closed()).toBe(true);
    expect(rt.services.bus.subscriberCount).toBe(subscribersBefore);
  });

  it("does not leak a subscription when the client went away before the stream started", async () => {
    const { ctx, projectId } = member;
    const info = await Session.create(ctx, { projectId });
    const subscribersBefore = rt.services.bus.subscriberCount;
    const abort = new AbortController();
    abort.abort();
    const res = await open(info.id, abort.signal);
    const stream = sseReader(res);
    await stream.pump;
    expect(stream.closed()).toBe(true);
    expect(rt.services.bus.subscriberCount).toBe(subscribersBefore);
  });

  it("team stream: 404 for another team, events of its sessions for the own team", async () => {
    const { ctx, projectId } = member;
    const teamOpen = (teamId: string, signal?: AbortSignal) =>
      teamRoute.GET(new Request(`http://parley.test/api/teams/${teamId}/events`, { signal, headers: member.headers }), { params: Promise.resolve({ teamId }) });
    const other = await otherTeam();
    const denied = await teamOpen(other.teamId);
    expect(denied.status).toBe(404);
    expect(await denied.json()).toMatchObject({ error: { code: "NOT_FOUND" } });

    const subscribersBefore = rt.services.bus.subscriberCount;
    const abort = new AbortController();
    const res = await teamOpen(ctx.actor.teamId, abort.signal);
    expect(res.status).toBe(200);
    const stream = sseReader(res);
    const created = await Session.create(ctx, { projectId });
    await Session.create(other.ctx, { projectId: other.projectId });
    await stream.until(() => stream.events.some((e) => e.name === "session.created"), "session.created");
    const ids = stream.events.map((e) => (e.payload as { info?: { id: string } }).info?.id);
    expect(new Set(ids)).toEqual(new Set([created.id]));
    abort.abort();
    await stream.pump;
    expect(rt.services.bus.subscriberCount).toBe(subscribersBefore);
  });
});
