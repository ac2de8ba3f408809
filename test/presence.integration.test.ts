import { describe, expect, it } from "vitest";
import { Session } from "../server/session";
import { trpcAnswer } from "./app";
import type { Browser } from "./auth";
import { twoTeamsSuite } from "./two-teams";

/**
 * Issue 33, point 9: presence through the real tRPC Route Handler with real sign-in
 * cookies — a heartbeat of a session of one's own team is listed for the team (typing
 * too) and goes out on the bus; another team's member can neither beat in it nor see it;
 * a tab that leaves is gone at once.
 */

interface Viewer {
  sessionId: string;
  user: { id: string; name: string };
  client: string;
  typing: boolean;
  ttlMs: number;
}

describe("presence (integration, through HTTP)", () => {
  const teams = twoTeamsSuite("presence");

  const listed = async (who: Browser) => {
    const answer = await trpcAnswer<Viewer[]>(teams.app, "presence.list", undefined, who.headers);
    expect(answer.status, answer.message).toBe(200);
    return answer.data;
  };

  it("lists a member's heartbeat for their team, typing included, and forgets the tab once it leaves", async () => {
    const session = await Session.create(teams.annCtx, { projectId: teams.projectId, title: "Who is here" });
    const published: string[] = [];
    const stop = teams.app.rt.services.bus.subscribe({ teamId: teams.annCtx.actor.teamId, audience: "team" }, (event) => published.push(event.name));
    const beat = await trpcAnswer<{ heartbeatMs: number; ttlMs: number }>(teams.app, "presence.beat", { sessionId: session.id, client: "ann-tab-0001", typing: true }, teams.ann.headers);
    expect(beat.status, beat.message).toBe(200);
    expect(beat.data.ttlMs).toBeGreaterThan(beat.data.heartbeatMs);
    const viewers = await listed(teams.ann);
    expect(viewers).toEqual([{ sessionId: session.id, user: { id: teams.annCtx.actor.userId, name: "Ann" }, client: "ann-tab-0001", typing: true, ttlMs: expect.any(Number) as number }]);
    expect((await trpcAnswer(teams.app, "presence.leave", { sessionId: session.id, client: "ann-tab-0001" }, teams.ann.headers)).status).toBe(200);
    expect(await listed(teams.ann)).toEqual([]);
    stop();
    expect(published).toEqual(["presence.updated", "presence.left"]);
  });

  it("refuses a heartbeat in another team's session and never shows a team's presence to another", async () => {
    const session = await Session.create(teams.annCtx, { projectId: teams.projectId, title: "Ann's own" });
    expect((await trpcAnswer(teams.app, "presence.beat", { sessionId: session.id, client: "ann-tab-0002" }, teams.ann.headers)).status).toBe(200);
    const intruder = await trpcAnswer(teams.app, "presence.beat", { sessionId: session.id, client: "bob-tab-0001" }, teams.bob.headers);
    expect(intruder.status).toBe(404);
    expect(await listed(teams.bob)).toEqual([]);
    expect((await listed(teams.ann)).map((viewer) => viewer.user.name)).toEqual(["Ann"]);
    // A leave of someone else's tab changes nothing: tabs are keyed by the acting member.
    await trpcAnswer(teams.app, "presence.leave", { sessionId: session.id, client: "ann-tab-0002" }, teams.bob.headers);
    expect((await listed(teams.ann)).map((viewer) => viewer.client)).toEqual(["ann-tab-0002"]);
  });

  it("rejects a malformed client id", async () => {
    const session = await Session.create(teams.annCtx, { projectId: teams.projectId, title: "Bad input" });
    const answer = await trpcAnswer(teams.app, "presence.beat", { sessionId: session.id, client: "../../x" }, teams.ann.headers);
    expect(answer.status).toBe(400);
  });
});
