import { beforeAll, describe, expect, it } from "vitest";
import { makeTeam, type TeamFixture } from "../../test/db";
import { parleyError, seedTurns } from "../../test/fixtures";
import * as Id from "../id";
import { Session } from "../session";
import { createCallerFactory } from "../trpc/init";
import { appRouter } from "../trpc/router";
import { ShareLinks, ShareView } from ".";

/** Reading through a share link: only the shared tree, only while the link is active. */

describe("ShareView (integration)", () => {
  let team: TeamFixture;
  let other: TeamFixture;
  let root: Session.Info;
  let child: Session.Info;
  let grandchild: Session.Info;
  let unrelated: Session.Info;
  let foreign: Session.Info;
  let shareId: string;

  beforeAll(async () => {
    team = await makeTeam();
    other = await makeTeam();
    root = await Session.create(team.ctx, { projectId: team.projectId, title: "Shared root" });
    child = await Session.create(team.ctx, { projectId: team.projectId, parentId: root.id, title: "Child" });
    grandchild = await Session.create(team.ctx, { projectId: team.projectId, parentId: child.id, title: "Grandchild" });
    unrelated = await Session.create(team.ctx, { projectId: team.projectId, title: "Not shared" });
    foreign = await Session.create(other.ctx, { projectId: other.projectId, title: "Other team" });
    await seedTurns(team.ctx, root.id, 7);
    await seedTurns(team.ctx, grandchild.id, 2);
    await seedTurns(team.ctx, unrelated.id, 1);
    await seedTurns(other.ctx, foreign.id, 1);
    const shared = await Session.share(team.ctx, root.id);
    shareId = shared.share!.id;
  });

  it("resolves an active share to its session, and an unknown or malformed id to NOT_FOUND", async () => {
    const info = await ShareView.resolve(team.ctx, shareId);
    expect(info).toMatchObject({ id: root.id, title: "Shared root", share: { id: shareId, url: `/share/${shareId}` } });
    expect((await ShareView.resolve(team.ctx, shareId, { publicUrl: "https://parley.example" })).share?.url).toBe(`https://parley.example/share/${shareId}`);
    await parleyError(ShareView.resolve(team.ctx, "AAAAAAAAAAAAAAAAAAAAAA"), "NOT_FOUND");
    await parleyError(ShareView.resolve(team.ctx, "../../etc/passwd"), "NOT_FOUND");
    await parleyError(ShareView.resolve(team.ctx, ""), "NOT_FOUND");
  });

  it("pages through the shared session's messages, newest page first, each with its parts", async () => {
    const seen: string[] = [];
    let before: string | undefined;
    let pages = 0;
    do {
      const page = await ShareView.messages(team.ctx, shareId, { limit: 5, before });
      expect(page.messages.every((m) => m.info.sessionId === root.id)).toBe(true);
      seen.unshift(...page.messages.map((m) => m.info.id));
      before = page.cursor;
      pages++;
    } while (before && pages < 10);
    expect(pages).toBe(3);
    const all = await Session.allMessages(team.ctx, root.id);
    expect(seen).toEqual(all.map((m) => m.info.id));
    const newest = await ShareView.messages(team.ctx, shareId, { limit: 2 });
    expect(newest.messages.map((m) => m.parts.length)).toEqual([1, 4]);
    expect(newest.messages[1]!.parts.map((p) => p.type)).toEqual(["step-start", "text", "tool", "step-finish"]);
  });

  it("reads descendants through the root's share, and nothing outside the tree", async () => {
    const page = await ShareView.messages(team.ctx, shareId, { sessionId: grandchild.id });
    expect(page.messages).toHaveLength(4);
    expect(page.messages.every((m) => m.info.sessionId === grandchild.id)).toBe(true);
    expect((await ShareView.messages(team.ctx, shareId, { sessionId: child.id })).messages).toEqual([]);
    await parleyError(ShareView.messages(team.ctx, shareId, { sessionId: unrelated.id }), "NOT_FOUND");
    await parleyError(ShareView.messages(team.ctx, shareId, { sessionId: foreign.id }), "NOT_FOUND");
    await parleyError(ShareView.messages(team.ctx, shareId, { sessionId: Id.descending("session") }), "NOT_FOUND");
    await parleyError(ShareView.children(team.ctx, shareId, unrelated.id), "NOT_FOUND");
    await parleyError(ShareView.messages(team.ctx, shareId, { sessionId: "msg_nope" }), "INVALID");

    expect((await ShareView.children(team.ctx, shareId)).map((s) => s.id)).toEqual([child.id]);
    expect((await ShareView.children(team.ctx, shareId, child.id)).map((s) => s.id)).toEqual([grandchild.id]);
    expect(await ShareView.descendants(team.ctx.db, root.id)).toEqual([root.id, child.id, grandchild.id]);
  });

  it("a child's own share does not open its parent", async () => {
    const childShare = (await Session.share(team.ctx, child.id)).share!.id;
    try {
      expect((await ShareView.resolve(team.ctx, childShare)).id).toBe(child.id);
      expect((await ShareView.messages(team.ctx, childShare, { sessionId: grandchild.id })).messages).toHaveLength(4);
      await parleyError(ShareView.messages(team.ctx, childShare, { sessionId: root.id }), "NOT_FOUND");
    } finally {
      await Session.unshare(team.ctx, child.id);
    }
  });

  it("gives one page with the session shown, its messages and its children", async () => {
    const page = await ShareView.page(team.ctx, { shareId, limit: 4 });
    expect(page.share).toEqual({ id: shareId, url: `/share/${shareId}` });
    expect(page.root.id).toBe(root.id);
    expect(page.session.id).toBe(root.id);
    expect(page.messages.messages).toHaveLength(4);
    expect(page.messages.cursor).toBeDefined();
    expect(page.children.map((c) => c.id)).toEqual([child.id]);
    const deeper = await ShareView.page(team.ctx, { shareId, sessionId: child.id });
    expect(deeper.session.id).toBe(child.id);
    expect(deeper.children.map((c) => c.id)).toEqual([grandchild.id]);
  });

  it("never shows a viewer the server directory or the session's permission rules", async () => {
    const fixture = await makeTeam();
    const rules = [{ permission: "bash", pattern: "rm *", action: "deny" as const }];
    const session = await Session.create(fixture.ctx, { projectId: fixture.projectId, title: "Private bits", permission: rules });
    await Session.create(fixture.ctx, { projectId: fixture.projectId, parentId: session.id, permission: rules });
    const id = (await Session.share(fixture.ctx, session.id)).share!.id;
    const member = await Session.get(fixture.ctx, session.id);
    expect(member.directory).not.toBe("");
    expect(member.permission).toEqual(rules);
    const page = await ShareView.page(fixture.ctx, { shareId: id });
    for (const info of [page.root, page.session, ...page.children]) {
      expect(info.directory).toBe("");
      expect(info.permission).toBeUndefined();
    }
    expect(JSON.stringify(page)).not.toContain(member.directory);
  });

  it("knows no link at all while sharing is disabled on the server", async () => {
    await parleyError(ShareView.resolve(team.ctx, shareId, { mode: "disabled" }), "NOT_FOUND");
    await parleyError(ShareView.page(team.ctx, { shareId }, { mode: "disabled" }), "NOT_FOUND");
    await parleyError(ShareView.messages(team.ctx, shareId, {}, { mode: "disabled" }), "NOT_FOUND");
    expect((await ShareView.resolve(team.ctx, shareId, { mode: "manual" })).id).toBe(root.id);
  });

  it("serves share.page to a caller with no member context, through tRPC", async () => {
    const caller = createCallerFactory(appRouter)(other.ctx);
    // The caller's own team does not matter: the share id alone decides.
    const page = await caller.share.page({ shareId, limit: 2 });
    expect(page.session.id).toBe(root.id);
    await expect(caller.share.page({ shareId: "AAAAAAAAAAAAAAAAAAAAAA" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("stops at once when revoked, and stays dead when the session is shared again (under a new id)", async () => {
    const fixture = await makeTeam();
    const session = await Session.create(fixture.ctx, { projectId: fixture.projectId, title: "Revocable" });
    const kid = await Session.create(fixture.ctx, { projectId: fixture.projectId, parentId: session.id });
    const id = (await Session.share(fixture.ctx, session.id)).share!.id;
    await ShareView.resolve(fixture.ctx, id);
    await Session.unshare(fixture.ctx, session.id);
    await parleyError(ShareView.resolve(fixture.ctx, id), "NOT_FOUND");
    await parleyError(ShareView.messages(fixture.ctx, id), "NOT_FOUND");
    await parleyError(ShareView.messages(fixture.ctx, id, { sessionId: kid.id }), "NOT_FOUND");
    await parleyError(ShareView.page(fixture.ctx, { shareId: id }), "NOT_FOUND");
    await parleyError(ShareView.children(fixture.ctx, id), "NOT_FOUND");
    const again = await Session.share(fixture.ctx, session.id);
    expect(again.share?.id).not.toBe(id);
    await parleyError(ShareView.resolve(fixture.ctx, id), "NOT_FOUND");
    await parleyError(ShareView.page(fixture.ctx, { shareId: id }), "NOT_FOUND");
    expect((await ShareView.resolve(fixture.ctx, again.share!.id)).id).toBe(session.id);
  });

  it("lists the team's links, revoked ones marked, other teams' never", async () => {
    const fixture = await makeTeam();
    const a = await Session.create(fixture.ctx, { projectId: fixture.projectId, title: "First shared" });
    const b = await Session.create(fixture.ctx, { projectId: fixture.projectId, title: "Second shared" });
    const c = await Session.create(fixture.ctx, { projectId: fixture.projectId, title: "Third shared" });
    const shareA = (await Session.share(fixture.ctx, a.id)).share!.id;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const shareB = (await Session.share(fixture.ctx, b.id)).share!.id;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const shareC = (await Session.share(fixture.ctx, c.id)).share!.id;
    await Session.unshare(fixture.ctx, b.id);
    const foreignShare = (await Session.share(other.ctx, foreign.id)).share!.id;

    const all = await ShareLinks.list(fixture.ctx);
    expect(all.items.map((l) => [l.id, l.title, l.revoked === undefined])).toEqual([
      [shareC, "Third shared", true],
      [shareB, "Second shared", false],
      [shareA, "First shared", true],
    ]);
    expect(all.items[0]).toMatchObject({ sessionId: c.id, url: `/share/${shareC}`, parentId: undefined });
    expect(all.items.map((l) => l.id)).not.toContain(foreignShare);
    expect((await ShareLinks.list(fixture.ctx, { revoked: false })).items.map((l) => l.id)).toEqual([shareC, shareA]);
    expect((await ShareLinks.list(fixture.ctx, { revoked: true })).items.map((l) => l.id)).toEqual([shareB]);

    const first = await ShareLinks.list(fixture.ctx, { limit: 2 });
    expect(first.items.map((l) => l.id)).toEqual([shareC, shareB]);
    const second = await ShareLinks.list(fixture.ctx, { limit: 2, cursor: first.nextCursor });
    expect(second.items.map((l) => l.id)).toEqual([shareA]);
    expect(second.nextCursor).toBeUndefined();

    const caller = createCallerFactory(appRouter)(fixture.ctx);
    expect((await caller.share.listShares({})).items).toHaveLength(3);
  });
});
