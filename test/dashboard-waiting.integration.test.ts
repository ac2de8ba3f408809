
import { describe, expect, it } from "vitest";
import * as Id from "../server/id";
import { Session } from "../server/session";
import { trpcAnswer } from "./app";
import type { Browser } from "./auth";
import { twoTeamsSuite } from "./two-teams";

/**
 * Issue 33, point 4: the dashboard shows the sessions waiting for approval first
 * (`dashboard.waiting`, above its table), through the real tRPC Route Handler with real
 * sign-in cookies: the longest waiting first, only the member's team, gone once answered.
 */


describe("sessions waiting for approval on the dashboard (integration, through HTTP)", () => {
  const teams = twoTeamsSuite("waiting");

  const waitingIds = async (who: Browser) => {
    const answer = await trpcAnswer<{ items: { session: { id: string } }[] }>(teams.app, "dashboard.waiting", undefined, who.headers);
    expect(answer.status, answer.message).toBe(200);
    return answer.data.items.map((item) => item.session.id);
  };

  /** A pending permission question of `sessionId`, asked at `at`. */
  const ask = (sessionId: string, at: Date) =>
    teams.app.rt.services.db.permissionRequest.create({
      data: { id: Id.ascending("permission"), teamId: teams.annCtx.actor.teamId, sessionId, projectId: teams.projectId, agent: "build", permission: "bash", patterns: ["make"], always: [], metadata: {}, createdAt: at },
    });

  it("lists the sessions with a pending question, longest waiting first; not another team's; not once answered", async () => {
    const idle = await Session.create(teams.annCtx, { projectId: teams.projectId, title: "Nothing asked" });
    const later = await Session.create(teams.annCtx, { projectId: teams.projectId, title: "Asked second" });
    const first = await Session.create(teams.annCtx, { projectId: teams.projectId, title: "Asked first" });
    expect(await waitingIds(teams.ann)).toEqual([]);
    await ask(later.id, new Date(Date.now() - 1_000));
    const question = await ask(first.id, new Date(Date.now() - 60_000));
    await ask(first.id, new Date());
    expect(await waitingIds(teams.ann)).toEqual([first.id, later.id]);
    expect(await waitingIds(teams.ann)).not.toContain(idle.id);
    expect(await waitingIds(teams.bob)).toEqual([]);
    await teams.app.rt.services.db.permissionRequest.updateMany({ where: { sessionId: first.id }, data: { status: "replied", repliedAt: new Date() } });
    expect(question.status).toBe("pending");
    expect(await waitingIds(teams.ann)).toEqual([later.id]);
    expect((await trpcAnswer(teams.app, "dashboard.waiting", undefined, new Headers())).status).toBe(401);
  });
});
