import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "../server/session";
import { type TestApp, trpcAnswer } from "./app";
import type { Browser } from "./auth";
import { twoTeams } from "./two-teams";

/**
 * Issue 33, point 9: presence through the real tRPC Route Handler with real sign-in
 * cookies — a heartbeat of a session of one's own team is listed for the team (typing
 * too) and goes out on the bus; another team's member can neither beat in it nor see it;
 * a tab that leaves is gone at once.
 */

type MemberContext = Awaited<ReturnType<typeof import("../server/context")["memberContext"]>>;
interface Viewer {
  sessionId: string;
  user: { id: string; name: string };
  client: string;
  typing: boolean;
  ttlMs: number;
}

describe("presence (integration, through HTTP)", () => {
  let app: TestApp;
  let ann: Browser;
  let bob: Browser;
  let annCtx: MemberContext;
  let projectId: string;

  beforeAll(async () => {
    ({ app, ann, bob, annCtx, projectId } = await twoTeams("presence"));
  });

  afterAll(async () => {
    await app?.close();
  });

  const listed = async (who: Browser) => {
    const answer = await trpcAnswer<Viewer[]>(app, "presence.list", undefined, who.headers);
    expect(answer.status, answer.message).toBe(200);
    return answer.data;
  };

  it("lists a member's heartbeat for their team, typing included, and forgets the tab once it leaves", async () => {
    const session = await Session.create(annCtx, { projectId, title: "Who is here" });
    const published: string[] = [];
    const stop = app.rt.services.bus.subscribe({ teamId: annCtx.actor.teamId, audience: "team" }, (event) => published.push(event.name));
    const beat = await trpcAnswer<{ heartbeatMs: number; ttlMs: number }>(app, "presence.beat", { sessionId: session.id, client: "ann-tab-0001", typing: true }, ann.headers);
    expect(beat.status, beat.message).toBe(200);
    expect(beat.data.ttlMs).toBeGreaterThan(beat.data.heartbeatMs);
    const viewers = await listed(ann);
    expect(viewers).toEqual([{ sessionId: session.id, user: { id: annCtx.actor.userId, name: "Ann" }, client: "ann-tab-0001", typing: true, ttlMs: expect.any(Number) as number }]);
    expect((await trpcAnswer(app, "presence.leave", { sessionId: session.id, client: "ann-tab-0001" }, ann.headers)).status).toBe(200);
    expect(await listed(ann)).toEqual([]);
    stop();
    expect(published).toEqual(["presence.updated", "presence.left"]);
  });

  it("refuses a heartbeat in another team's session and never shows a team's presence to another", async () => {
    const session = await Session.create(annCtx, { projectId, title: "Ann's own" });
    expect((await trpcAnswer(app, "presence.beat", { sessionId: session.id, client: "ann-tab-0002" }, ann.headers)).status).toBe(200);
    const intruder = await trpcAnswer(app, "presence.beat", { sessionId: session.id, client: "bob-tab-0001" }, bob.headers);
    expect(intruder.status).toBe(404);
    expect(await listed(bob)).toEqual([]);
    expect((await listed(ann)).map((viewer) => viewer.user.name)).toEqual(["Ann"]);
    // A leave of someone else's tab changes nothing: tabs are keyed by the acting member.
    await trpcAnswer(app, "presence.leave", { sessionId: session.id, client: "ann-tab-0002" }, bob.headers);
    expect((await listed(ann)).map((viewer) => viewer.client)).toEqual(["ann-tab-0002"]);
  });

  it("rejects a malformed client id", async () => {
    const session = await Session.create(annCtx, { projectId, title: "Bad input" });
    const answer = await trpcAnswer(app, "presence.beat", { sessionId: session.id, client: "../../x" }, ann.headers);
    expect(answer.status).toBe(400);
  });
});
