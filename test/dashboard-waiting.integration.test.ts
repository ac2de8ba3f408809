
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Id from "../server/id";
import { Session } from "../server/session";
import { type TestApp, trpcAnswer } from "./app";
import type { Browser } from "./auth";
import { twoTeams } from "./two-teams";

/**
 * Issue 33, point 4: the dashboard shows the sessions waiting for approval first
 * (`dashboard.waiting`, above its table), through the real tRPC Route Handler with real
 * sign-in cookies: the longest waiting first, only the member's team, gone once answered.
 */

type MemberContext = Awaited<ReturnType<typeof import("../server/context")["memberContext"]>>;

describe("sessions waiting for approval on the dashboard (integration, through HTTP)", () => {
  let app: TestApp;
  let ann: Browser;
  let bob: Browser;
  let annCtx: MemberContext;
  let projectId: string;

  beforeAll(async () => {
    ({ app, ann, bob, annCtx, projectId } = await twoTeams("waiting"));
  });

  afterAll(async () => {
    await app?.close();
  });

  const waitingIds = async (who: Browser) => {
    const answer = await trpcAnswer<{ items: { session: { id: string } }[] }>(app, "dashboard.waiting", undefined, who.headers);
    expect(answer.status, answer.message).toBe(200);
    return answer.data.items.map((item) => item.session.id);
  };

  /** A pending permission question of `sessionId`, asked at `at`. */
  const ask = (sessionId: string, at: Date) =>
    app.rt.services.db.permissionRequest.create({
      data: { id: Id.ascending("permission"), teamId: annCtx.actor.teamId, sessionId, projectId, agent: "build", permission: "bash", patterns: ["make"], always: [], metadata: {}, createdAt: at },
    });

  it("lists the sessions with a pending question, longest waiting first; not another team's; not once answered", async () => {
    const idle = await Session.create(annCtx, { projectId, title: "Nothing asked" });
    const later = await Session.create(annCtx, { projectId, title: "Asked second" });
    const first = await Session.create(annCtx, { projectId, title: "Asked first" });
    expect(await waitingIds(ann)).toEqual([]);
    await ask(later.id, new Date(Date.now() - 1_000));
    const question = await ask(first.id, new Date(Date.now() - 60_000));
    await ask(first.id, new Date());
    expect(await waitingIds(ann)).toEqual([first.id, later.id]);
    expect(await waitingIds(ann)).not.toContain(idle.id);
    expect(await waitingIds(bob)).toEqual([]);
    await app.rt.services.db.permissionRequest.updateMany({ where: { sessionId: first.id }, data: { status: "replied", repliedAt: new Date() } });
    expect(question.status).toBe("pending");
    expect(await waitingIds(ann)).toEqual([later.id]);
    expect((await trpcAnswer(app, "dashboard.waiting", undefined, new Headers())).status).toBe(401);
  });
});
