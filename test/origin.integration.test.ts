import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Project } from "../server/project";
import { Session } from "../server/session";
import { type TestApp, openApp, type SessionEvents, type TeamEvents, type ShareEvents } from "./app";
import { type Browser, ORIGIN, signUp } from "./auth";

/**
 * A page of another site cannot use a member's cookie: tRPC calls and the live streams
 * (the real Route Handlers) refuse a foreign Origin, or a cross-site fetch, and act on
 * nothing; the site's own pages — and clients that are no browser — go on as before.
 */

describe("requests from another site (integration)", () => {
  let app: TestApp;
  let ann: Browser;
  let sessionId: string;
  let teamId: string;
  let shareId: string;
  let sessionEvents: SessionEvents;
  let teamEvents: TeamEvents;
  let shareEvents: ShareEvents;

  const from = (origin: string | undefined, extra: Record<string, string> = {}) => {
    const headers = new Headers(ann.headers);
    if (origin !== undefined) headers.set("origin", origin);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return headers;
  };

  beforeAll(async () => {
    app = await openApp("origin", (dir) => ({
      PARLEY_DATA_DIR: path.join(dir, "data"),
      PARLEY_PROJECT_DIR: path.join(dir, "default"),
      PARLEY_SIGNUP: "open",
    }));
    sessionEvents = await import("../app/api/sessions/[sessionId]/events/route");
    teamEvents = await import("../app/api/teams/[teamId]/events/route");
    shareEvents = await import("../app/api/share/[shareId]/events/route");
    const { getAuth } = await import("../server/auth/instance");
    const { memberContext } = await import("../server/context");
    ann = await signUp(await getAuth(), "ann@origin.test", "Ann");
    const ctx = await memberContext(ann.headers);
    const [project] = await Project.list(ctx);
    const session = await Session.create(ctx, { projectId: project!.id, title: "Ann's plans" });
    const shared = await Session.share(ctx, session.id);
    sessionId = session.id;
    teamId = ctx.actor.teamId;
    shareId = shared.share!.url.split("/").at(-1)!;
  });
  afterAll(async () => {
    await app?.close();
  });

  it("tRPC: a mutation with another site's Origin is refused and changes nothing; the site's own and a non-browser client's go through", async () => {
    for (const headers of [from("http://evil.example"), from("null"), from(undefined, { "sec-fetch-site": "cross-site" }), from("https://parley.test")]) {
      const res = await app.call("session.update", { sessionId, patch: { title: "Taken over" } }, headers);
      expect(res.status, res.text).toBe(403);
    }
    expect((await app.call("session.get", { sessionId }, from("http://evil.example"))).status).toBe(403);
    const { memberContext } = await import("../server/context");
    expect((await Session.get(await memberContext(ann.headers), sessionId)).title).toBe("Ann's plans");

    expect((await app.call("session.update", { sessionId, patch: { title: "Renamed here" } }, from(ORIGIN))).status).toBe(200);
    expect((await app.call("session.update", { sessionId, patch: { title: "Renamed by a script" } }, from(undefined))).status).toBe(200);
    // The site reached under another name (its own Host) is still itself.
    const otherName = from("http://parley.internal:8080", { host: "parley.internal:8080" });
    expect((await app.call("session.get", { sessionId }, otherName)).status).toBe(200);
  });

  it("SSE: the session, team and share streams refuse another site's Origin and open for the site's own", async () => {
    const open = (headers: Headers, signal?: AbortSignal) => [
      sessionEvents.GET(new Request(`${ORIGIN}/api/sessions/${sessionId}/events`, { headers, signal }), { params: Promise.resolve({ sessionId }) }),
      teamEvents.GET(new Request(`${ORIGIN}/api/teams/${teamId}/events`, { headers, signal }), { params: Promise.resolve({ teamId }) }),
      shareEvents.GET(new Request(`${ORIGIN}/api/share/${shareId}/events`, { headers, signal }), { params: Promise.resolve({ shareId }) }),
    ];
    for (const res of await Promise.all(open(from("http://evil.example")))) {
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: "FORBIDDEN" } });
    }
    const abort = new AbortController();
    const own = await Promise.all(open(from(ORIGIN), abort.signal));
    expect(own.map((res) => res.status)).toEqual([200, 200, 200]);
    abort.abort();
    await Promise.all(own.map((res) => res.body?.cancel()));
  });
});
