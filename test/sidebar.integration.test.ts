import { describe, expect, it } from "vitest";
import * as Id from "../server/id";
import { Session } from "../server/session";
import { trpcAnswer } from "./app";
import type { Browser } from "./auth";
import { twoTeamsSuite } from "./two-teams";

/**
 * Issue 33, point 2: the session sidebar's read (`sidebar.recent`) through the real tRPC
 * Route Handler — roots by project, children nested under their parents (never as roots),
 * archived sessions left out, the questions waiting, the failed replies (a stop is no
 * failure), each root's branch; and nothing of another team.
 */

interface Node {
  id: string;
  title: string;
  parentId?: string;
  status: { type: string };
  waiting: boolean;
  failed: boolean;
  workspace?: { branch: string };
  children: Node[];
}
interface Sidebar {
  projects: { id: string; name: string; sessions: Node[] }[];
}

describe("session sidebar (integration, through HTTP)", () => {
  const teams = twoTeamsSuite("sidebar");

  const recent = async (who: Browser) => {
    const answer = await trpcAnswer<Sidebar>(teams.app, "sidebar.recent", {}, who.headers);
    expect(answer.status, answer.message).toBe(200);
    return answer.data;
  };

  const assistantWithError = (sessionId: string, name: "APIError" | "AbortedError") =>
    teams.app.rt.services.db.message.create({
      data: { id: Id.ascending("message"), sessionId, role: "assistant", timeCreated: new Date(), data: { error: { name, message: "it broke", isRetryable: false } } },
    });

  it("nests children under their parents, marks questions and failures, shows branches, leaves out archived sessions", async () => {
    const root = await Session.create(teams.annCtx, { projectId: teams.projectId, title: "Root" });
    const child = await Session.create(teams.annCtx, { projectId: teams.projectId, parentId: root.id, title: "Child" });
    const grandchild = await Session.create(teams.annCtx, { projectId: teams.projectId, parentId: child.id, title: "Grandchild" });
    const failed = await Session.create(teams.annCtx, { projectId: teams.projectId, title: "Failed" });
    await assistantWithError(failed.id, "APIError");
    const stopped = await Session.create(teams.annCtx, { projectId: teams.projectId, title: "Stopped" });
    await assistantWithError(stopped.id, "AbortedError");
    const archived = await Session.create(teams.annCtx, { projectId: teams.projectId, title: "Archived" });
    await Session.update(teams.annCtx, archived.id, { archived: true });
    await teams.app.rt.services.db.permissionRequest.create({
      data: { id: Id.ascending("permission"), teamId: teams.annCtx.actor.teamId, sessionId: grandchild.id, projectId: teams.projectId, agent: "build", permission: "bash", patterns: ["make"], always: [], metadata: {} },
    });

    const sidebar = await recent(teams.ann);
    expect(sidebar.projects).toHaveLength(1);
    const [project] = sidebar.projects;
    expect(project?.id).toBe(teams.projectId);
    const roots = project?.sessions ?? [];
    // Newest activity first; children only as children; archived not at all.
    expect(roots.map((s) => s.title)).toEqual(["Stopped", "Failed", "Root"]);
    const top = roots.find((s) => s.id === root.id);
    expect(top?.workspace?.branch).toMatch(/^parley\//);
    expect(top?.children.map((s) => s.title)).toEqual(["Child"]);
    const nested = top?.children[0]?.children[0];
    expect(nested).toMatchObject({ id: grandchild.id, parentId: child.id, waiting: true, failed: false, status: { type: "idle" } });
    expect(roots.find((s) => s.id === failed.id)).toMatchObject({ failed: true, waiting: false });
    expect(roots.find((s) => s.id === stopped.id)).toMatchObject({ failed: false });
    expect(top).toMatchObject({ waiting: false, failed: false });
  });

  it("shows another team nothing of it", async () => {
    const theirs = await recent(teams.bob);
    const mine = await recent(teams.ann);
    const ids = JSON.stringify(mine);
    for (const project of theirs.projects) expect(ids).not.toContain(project.id);
    expect(theirs.projects.flatMap((p) => p.sessions)).toEqual([]);
  });
});
