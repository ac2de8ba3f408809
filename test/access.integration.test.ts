
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Runtime, type TestApp, openApp, projectAppEnv, trpcData, type SessionEvents, type TeamEvents, type Auth } from "./app";
import { type Browser, authCall, joinTeam, signIn } from "./auth";
import { annSignsUp } from "./two-teams";
import { sseReader } from "./sse";

/**
 * Open live streams end with the access they were opened with (issue: a removed or
 * signed-out member kept receiving the team's live events): within a second of a removal
 * from the team or a sign-out, through the event the auth hooks publish; and, for access
 * that ends without that event (a sign-in row deleted by hand), at the next backstop check.
 */

describe("live streams end when access ends (integration, through HTTP)", () => {
  let app: TestApp;
  let rt: Runtime;
  let auth: Auth;
  let sessionEvents: SessionEvents;
  let teamEvents: TeamEvents;
  let ann: Browser;
  let teamId: string;
  let projectId: string;
  const aborts: AbortController[] = [];

  const ok = <T>(procedure: string, input: unknown, who: Browser) => trpcData<T>(app, procedure, input, who.headers);

  /** A member of Ann's team (invited, signed up, accepted). */
  const member = (email: string) => joinTeam(auth, ann, teamId, email);

  /** The session stream and the team stream of `who`, open and past their opening. */
  async function streams(who: Browser, sessionId: string) {
    const abort = new AbortController();
    aborts.push(abort);
    const { signal } = abort;
    const session = await sessionEvents.GET(new Request(`http://parley.test/api/sessions/${sessionId}/events`, { headers: who.headers, signal }), { params: Promise.resolve({ sessionId }) });
    const team = await teamEvents.GET(new Request(`http://parley.test/api/teams/${teamId}/events`, { headers: who.headers, signal }), { params: Promise.resolve({ teamId }) });
    expect(session.status).toBe(200);
    expect(team.status).toBe(200);
    const s = sseReader(session);
    const t = sseReader(team);
    await s.until(() => s.events.some((e) => e.name === "stream.ready"), "the session stream's opening");
    return { session: s, team: t };
  }

  /** Resolves with how long it took `closed` to hold, or throws after `ms`. */
  async function closedWithin(closed: () => boolean, ms: number): Promise<number> {
    const start = Date.now();
    while (!closed()) {
      if (Date.now() - start > ms) throw new Error(`the stream was still open after ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return Date.now() - start;
  }

  beforeAll(async () => {
    app = await openApp("access", (dir) =>
      projectAppEnv(dir, {
        PARLEY_SIGNUP: "invite",
      }),
    );
    rt = app.rt;
    sessionEvents = await import("../app/api/sessions/[sessionId]/events/route");
    teamEvents = await import("../app/api/teams/[teamId]/events/route");
    ({ auth, ann, teamId, projectId } = await annSignsUp(app, "access"));
  });

  afterAll(async () => {
    for (const abort of aborts) abort.abort();
    await app?.close();
  });

  it("a member removed from the team: their open streams end within a second, and new events stop reaching them", async () => {
    const bob = await member("bob@access.test");
    const { id: sessionId } = await ok<{ id: string }>("session.create", { projectId, title: "plans" }, ann);
    const bobs = await streams(bob, sessionId);
    const anns = await streams(ann, sessionId);
    const removed = await authCall(auth, "/organization/remove-member", { memberIdOrEmail: bob.email, organizationId: teamId }, ann.headers);
    expect(removed.status).toBe(200);
    expect(await closedWithin(bobs.session.closed, 1_000)).toBeLessThan(1_000);
    expect(await closedWithin(bobs.team.closed, 1_000)).toBeLessThan(1_000);
    const seen = bobs.team.events.length;
    await ok("session.update", { sessionId, patch: { title: "new secret plans" } }, ann);
    await anns.team.until(() => anns.team.events.some((e) => JSON.stringify(e.payload).includes("new secret plans")), "Ann's title event");
    expect(bobs.team.events.length).toBe(seen);
    // Ann's own streams are untouched.
    expect(anns.session.closed()).toBe(false);
    expect(anns.team.closed()).toBe(false);
  });

  it("signing out ends the streams of that sign-in within a second; the user's other sign-in keeps its streams", async () => {
    const cora = await member("cora@access.test");
    const elsewhere = await signIn(auth, cora.email);
    const { id: sessionId } = await ok<{ id: string }>("session.create", { projectId, title: "sign-out" }, ann);
    const here = await streams(cora, sessionId);
    const there = await streams(elsewhere, sessionId);
    expect((await authCall(auth, "/sign-out", {}, cora.headers)).status).toBe(200);
    expect(await closedWithin(here.session.closed, 1_000)).toBeLessThan(1_000);
    expect(await closedWithin(here.team.closed, 1_000)).toBeLessThan(1_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(there.session.closed()).toBe(false);
    expect(there.team.closed()).toBe(false);
  });

  it("access that ends without the event (a sign-in deleted by hand) ends the streams at the backstop check", async () => {
    const dan = await member("dan@access.test");
    const { id: sessionId } = await ok<{ id: string }>("session.create", { projectId, title: "backstop" }, ann);
    const open = await streams(dan, sessionId);
    const anns = await streams(ann, sessionId);
    await rt.services.db.authSession.deleteMany({ where: { userId: dan.userId } });
    await rt.services.access.recheck();
    expect(await closedWithin(open.session.closed, 1_000)).toBeLessThan(1_000);
    expect(await closedWithin(open.team.closed, 1_000)).toBeLessThan(1_000);
    expect(anns.session.closed()).toBe(false);
  });
});
