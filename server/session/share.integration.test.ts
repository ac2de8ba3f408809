import { describe, expect, it } from "vitest";
import { makeTeam, testDb } from "../../test/db";
import { parleyError, record } from "../../test/fixtures";
import { Session } from ".";
import { withSettings } from "../../test/runtime";

describe("Session share/unshare (integration)", () => {
  it("shares with an unguessable id, keeps it while shared, and makes a new one after a revoke", async () => {
    const team = await makeTeam();
    const ctx = withSettings(team.ctx, { publicUrl: "https://parley.example.com" });
    const session = await Session.create(ctx, { projectId: team.projectId });
    expect(session.share).toBeUndefined();
    const events = record(ctx.bus, team.teamId, session.id);

    const shared = await Session.share(ctx, session.id);
    const id = shared.share?.id ?? "";
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(shared.share?.url).toBe(`https://parley.example.com/share/${id}`);
    expect((await Session.get(ctx, session.id)).share).toEqual(shared.share);
    // Sharing an already shared session changes nothing.
    expect((await Session.share(ctx, session.id)).share).toEqual(shared.share);

    const unshared = await Session.unshare(ctx, session.id);
    expect(unshared.share).toBeUndefined();
    expect((await Session.get(ctx, session.id)).share).toBeUndefined();
    const row = await testDb().share.findUnique({ where: { sessionId: session.id } });
    expect(row?.revokedAt).toBeInstanceOf(Date);
    expect((await Session.list(ctx)).items.find((s) => s.id === session.id)?.share).toBeUndefined();

    // A revoked link stays dead: sharing again makes a new one, and the old id is gone.
    const again = await Session.share(ctx, session.id);
    expect(again.share?.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(again.share?.id).not.toBe(id);
    expect(await testDb().share.findUnique({ where: { id } })).toBeNull();
    expect((await Session.share(ctx, session.id)).share).toEqual(again.share);
    expect(events.names()).toEqual(["session.updated", "session.updated", "session.updated", "session.updated", "session.updated"]);
    expect(events.events.map((e) => (e.payload as { info: { share?: unknown } }).info.share !== undefined)).toEqual([true, true, false, true, true]);

    const other = await Session.share(ctx, (await Session.create(ctx, { projectId: team.projectId })).id);
    expect(other.share?.id).not.toBe(id);
    // Without a public URL the link is relative.
    expect((await Session.get(team.ctx, session.id)).share?.url).toBe(`/share/${again.share?.id}`);
  });

  it("concurrent shares of one session all succeed with one share id", async () => {
    const { ctx, projectId } = await makeTeam();
    const session = await Session.create(ctx, { projectId });
    const results = await Promise.all([1, 2, 3, 4].map(() => Session.share(ctx, session.id)));
    expect(new Set(results.map((r) => r.share?.id)).size).toBe(1);
    await Session.unshare(ctx, session.id);
    // After a revoke, concurrent shares agree on one new id.
    const again = await Promise.all([1, 2, 3].map(() => Session.share(ctx, session.id)));
    const renewed = again[0]?.share?.id;
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(results[0]?.share?.id);
    expect(again.map((r) => r.share?.id)).toEqual(Array(3).fill(renewed));
  });

  it('refuses to share when the share mode is "disabled"', async () => {
    const team = await makeTeam();
    const ctx = withSettings(team.ctx, { share: "disabled" });
    const session = await Session.create(ctx, { projectId: team.projectId });
    expect(session.share).toBeUndefined();
    await parleyError(Session.share(ctx, session.id), "FORBIDDEN");
    expect(await testDb().share.count({ where: { sessionId: session.id } })).toBe(0);
  });

  it('"auto" shares new root sessions and forks at creation, never children', async () => {
    const team = await makeTeam();
    const ctx = withSettings(team.ctx, { share: "auto" });
    const events = record(ctx.bus, team.teamId);
    const root = await Session.create(ctx, { projectId: team.projectId });
    expect(root.share?.url).toBe(`/share/${root.share?.id}`);
    expect(events.names()).toEqual(["session.created", "session.updated"]);
    expect((events.events[1]?.payload as { info: { share?: unknown } }).info.share).toEqual(root.share);
    expect((await Session.get(ctx, root.id)).share).toEqual(root.share);

    const child = await Session.create(ctx, { projectId: team.projectId, parentId: root.id });
    expect(child.share).toBeUndefined();
    expect(await testDb().share.count({ where: { sessionId: child.id } })).toBe(0);

    const fork = await Session.fork(ctx, { sessionId: root.id });
    expect(fork.share).toBeDefined();
    expect(fork.share?.id).not.toBe(root.share?.id);

    const manual = await Session.create(team.ctx, { projectId: team.projectId });
    expect(manual.share).toBeUndefined();
  });
});
