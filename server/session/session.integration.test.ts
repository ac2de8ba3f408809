import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeTeam, testDb } from "../../test/db";
import { parleyError, record, seedTurns } from "../../test/fixtures";
import * as Id from "../id";
import { Session } from ".";
import type { Info } from "./info";

const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

describe("Session create/get (integration)", () => {
  it("creates and gets a session with a default title", async () => {
    const { ctx, projectId } = await makeTeam();
    const info = await Session.create(ctx, { projectId });
    expect(info.id.startsWith("ses_")).toBe(true);
    expect(Session.isDefaultTitle(info.title)).toBe(true);
    expect(await Session.get(ctx, info.id)).toEqual(info);
  });

  it("gives root and child sessions their default titles at the context's time", async () => {
    const team = await makeTeam();
    const ctx = { ...team.ctx, clock: { now: () => AT } };
    const root = await Session.create(ctx, { projectId: team.projectId });
    const child = await Session.create(ctx, { projectId: team.projectId, parentId: root.id });
    expect(root.title).toBe("New session - Jan 2, 2026, 03:04 UTC");
    expect(child.title).toBe("Child session - Jan 2, 2026, 03:04 UTC");
    expect(child.parentId).toBe(root.id);
    expect(root.parentId).toBeUndefined();
    expect(root.time).toEqual({ created: AT, updated: AT });
    expect(root).toMatchObject({ teamId: team.teamId, projectId: team.projectId, authorId: team.userId, cost: 0 });
    // A root session works in a workspace of its own under the data directory; its child shares it.
    expect(root.workspaceId).toMatch(/^wsp_/);
    expect(root.directory).toBe(path.join(ctx.settings.dataDir, "workspaces", team.projectId, root.workspaceId ?? ""));
    expect(child).toMatchObject({ workspaceId: root.workspaceId, directory: root.directory });
    const titled = await Session.create(ctx, { projectId: team.projectId, title: "  Fix the login  ", agent: "build", model: { providerId: "openai", modelId: "gpt-x" } });
    expect(titled).toMatchObject({ title: "Fix the login", agent: "build", model: { providerId: "openai", modelId: "gpt-x" } });
  });

  it("publishes session.created before session.updated on create", async () => {
    const team = await makeTeam();
    const events = record(team.ctx.bus, team.teamId);
    const info = await Session.create(team.ctx, { projectId: team.projectId });
    expect(events.names()).toEqual(["session.created", "session.updated"]);
    expect(events.events.every((e) => e.scope.sessionId === info.id && e.scope.teamId === team.teamId)).toBe(true);
    expect(events.events[0]?.payload).toEqual({ info });
  });

  it("rejects invalid input with INVALID and unknown ids with NOT_FOUND", async () => {
    const team = await makeTeam();
    await parleyError(Session.create(team.ctx, { projectId: "ses_nope" }), "INVALID");
    await parleyError(Session.create(team.ctx, { projectId: team.projectId, title: "x".repeat(201) }), "INVALID");
    await parleyError(Session.create(team.ctx, { projectId: team.projectId, title: "   " }), "INVALID");
    await parleyError(Session.create(team.ctx, { projectId: Id.ascending("project") }), "NOT_FOUND");
    await parleyError(Session.create(team.ctx, { projectId: team.projectId, parentId: Id.descending("session") }), "NOT_FOUND");
    await parleyError(Session.get(team.ctx, Id.descending("session")), "NOT_FOUND");
    await parleyError(Session.get(team.ctx, Id.ascending("message")), "INVALID");
  });

  it("refuses a child in another project than its parent", async () => {
    const team = await makeTeam();
    const other = Id.ascending("project");
    await testDb().project.create({ data: { id: other, teamId: team.teamId, name: "other", directory: `/tmp/${other}` } });
    const root = await Session.create(team.ctx, { projectId: team.projectId });
    await parleyError(Session.create(team.ctx, { projectId: other, parentId: root.id }), "INVALID");
  });
});

describe("Session.list (integration)", () => {
  /** Sessions whose update times are controlled: `times[i]` ms after AT, several equal. */
  async function seeded(times: number[]) {
    const team = await makeTeam();
    const made: Info[] = [];
    for (const offset of times) made.push(await Session.create({ ...team.ctx, clock: { now: () => AT + offset } }, { projectId: team.projectId }));
    return { ...team, made };
  }

  const byUpdatedDesc = (a: Info, b: Info) => b.time.updated - a.time.updated || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

  it("returns every session exactly once across cursor pages, updated-desc, ties by id", async () => {
    const { ctx, made } = await seeded([5, 3, 3, 3, 9, 0, 7, 7, 1, 3, 12, 2, 3, 8, 8, 4, 6, 10, 11, 3, 2, 5, 0]);
    const seen: Info[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await Session.list(ctx, { limit: 4, cursor });
      expect(page.items.length).toBeLessThanOrEqual(4);
      expect(page.corrupt).toEqual([]);
      seen.push(...page.items);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBe(Math.ceil(made.length / 4));
    expect(seen.map((s) => s.id)).toEqual([...made].sort(byUpdatedDesc).map((s) => s.id));
    expect(new Set(seen.map((s) => s.id)).size).toBe(made.length);
  });

  it("has no next cursor when everything fits, and rejects a malformed cursor", async () => {
    const { ctx } = await seeded([1, 2]);
    const page = await Session.list(ctx, { limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).toBeUndefined();
    await parleyError(Session.list(ctx, { cursor: "not-a-cursor" }), "INVALID");
    await parleyError(Session.list(ctx, { limit: 0 }), "INVALID");
  });

  it("filters by project, parent (null = roots), archived and title search", async () => {
    const team = await makeTeam();
    const ctx = team.ctx;
    const otherProject = Id.ascending("project");
    await testDb().project.create({ data: { id: otherProject, teamId: team.teamId, name: "two", directory: `/tmp/${otherProject}` } });
    const a = await Session.create(ctx, { projectId: team.projectId, title: "Fix the LOGIN page" });
    const b = await Session.create(ctx, { projectId: team.projectId, title: "Refactor parser" });
    const child = await Session.create(ctx, { projectId: team.projectId, parentId: a.id, title: "login helper" });
    const c = await Session.create(ctx, { projectId: otherProject, title: "Rate is 100% wrong" });
    const d = await Session.create(ctx, { projectId: otherProject, title: "Rate is 100 wrong" });
    await Session.update(ctx, b.id, { archived: true });

    const ids = async (input: Parameters<typeof Session.list>[1]) => new Set((await Session.list(ctx, input)).items.map((s) => s.id));

    expect(await ids({})).toEqual(new Set([a.id, child.id, c.id, d.id]));
    expect(await ids({ archived: true })).toEqual(new Set([b.id]));
    expect(await ids({ archived: "all" })).toEqual(new Set([a.id, b.id, child.id, c.id, d.id]));
    expect(await ids({ projectId: otherProject })).toEqual(new Set([c.id, d.id]));
    expect(await ids({ projectId: team.projectId, archived: "all" })).toEqual(new Set([a.id, b.id, child.id]));
    expect(await ids({ parentId: null })).toEqual(new Set([a.id, c.id, d.id]));
    expect(await ids({ parentId: a.id })).toEqual(new Set([child.id]));
    expect(await ids({ search: "login" })).toEqual(new Set([a.id, child.id]));
    expect(await ids({ search: "LoGiN", parentId: null })).toEqual(new Set([a.id]));
    expect(await ids({ search: "parser" })).toEqual(new Set());
    expect(await ids({ search: "parser", archived: true })).toEqual(new Set([b.id]));
    // LIKE wildcards in the search are literal characters.
    expect(await ids({ search: "100%" })).toEqual(new Set([c.id]));
    expect(await ids({ search: "_" })).toEqual(new Set());
    expect(await ids({ search: "is_100" })).toEqual(new Set());
    expect(await ids({ authorId: team.userId })).toEqual(new Set([a.id, child.id, c.id, d.id]));
    expect(await ids({ authorId: Id.ascending("user") })).toEqual(new Set());
    const slash = await Session.create(ctx, { projectId: otherProject, title: "path a\\b" });
    expect(await ids({ search: "a\\b" })).toEqual(new Set([slash.id]));
  });

  it("children lists only the direct children", async () => {
    const { ctx, projectId } = await makeTeam();
    const root = await Session.create(ctx, { projectId });
    const kid1 = await Session.create(ctx, { projectId, parentId: root.id });
    const kid2 = await Session.create(ctx, { projectId, parentId: root.id });
    await Session.create(ctx, { projectId, parentId: kid1.id });
    expect(new Set((await Session.children(ctx, root.id)).map((s) => s.id))).toEqual(new Set([kid1.id, kid2.id]));
    expect(await Session.children(ctx, kid2.id)).toEqual([]);
  });
});

describe("Session.update/touch (integration)", () => {
  it("updates title, archived and permission, and publishes session.updated", async () => {
    const team = await makeTeam();
    let clock = AT;
    const ctx = { ...team.ctx, clock: { now: () => clock } };
    const info = await Session.create(ctx, { projectId: team.projectId });
    const events = record(ctx.bus, team.teamId, info.id);

    clock = AT + 1000;
    const renamed = await Session.update(ctx, info.id, { title: "Renamed" });
    expect(renamed.title).toBe("Renamed");
    expect(renamed.time.updated).toBe(AT + 1000);
    expect(renamed.time.created).toBe(AT);

    clock = AT + 2000;
    const archived = await Session.update(ctx, info.id, { archived: true });
    expect(archived.time.archived).toBe(AT + 2000);
    clock = AT + 3000;
    // Archiving again keeps the first archive time.
    expect((await Session.update(ctx, info.id, { archived: true })).time.archived).toBe(AT + 2000);
    expect((await Session.update(ctx, info.id, { archived: false })).time.archived).toBeUndefined();

    const rules = [{ permission: "bash", pattern: "rm *", action: "deny" as const }];
    expect((await Session.update(ctx, info.id, { permission: rules })).permission).toEqual(rules);
    expect((await Session.get(ctx, info.id)).permission).toEqual(rules);
    expect((await Session.update(ctx, info.id, { permission: null })).permission).toBeUndefined();

    expect(events.names()).toEqual(Array(6).fill("session.updated"));
    expect((events.events[0]?.payload as { info: Info }).info.title).toBe("Renamed");

    await parleyError(Session.update(ctx, info.id, { title: "" }), "INVALID");
    await parleyError(Session.update(ctx, info.id, { title: "y".repeat(201) }), "INVALID");
    await parleyError(Session.update(ctx, info.id, { slug: "x" } as never), "INVALID");
    await parleyError(Session.update(ctx, Id.descending("session"), { title: "x" }), "NOT_FOUND");
    expect((await Session.get(ctx, info.id)).title).toBe("Renamed");
  });

  it("touch moves the update time and the session to the top of the list", async () => {
    const team = await makeTeam();
    let clock = AT;
    const ctx = { ...team.ctx, clock: { now: () => clock } };
    const first = await Session.create(ctx, { projectId: team.projectId });
    clock += 10;
    const second = await Session.create(ctx, { projectId: team.projectId });
    expect((await Session.list(ctx)).items.map((s) => s.id)).toEqual([second.id, first.id]);
    clock += 10;
    const touched = await Session.touch(ctx, first.id);
    expect(touched.time.updated).toBe(clock);
    expect((await Session.list(ctx)).items.map((s) => s.id)).toEqual([first.id, second.id]);
  });
});

describe("Session.remove (integration)", () => {
  it("deletes children recursively with their messages, parts, share and todos, publishing session.deleted for each", async () => {
    const team = await makeTeam();
    const ctx = team.ctx;
    const db = testDb();
    const root = await Session.create(ctx, { projectId: team.projectId });
    const child = await Session.create(ctx, { projectId: team.projectId, parentId: root.id });
    const grandchild = await Session.create(ctx, { projectId: team.projectId, parentId: child.id });
    const sibling = await Session.create(ctx, { projectId: team.projectId, parentId: root.id });
    const bystander = await Session.create(ctx, { projectId: team.projectId });
    const doomed = [root.id, child.id, grandchild.id, sibling.id];
    for (const id of [...doomed, bystander.id]) await seedTurns(ctx, id, 2);
    await Session.share(ctx, root.id);
    await Session.share(ctx, grandchild.id);
    await db.todo.create({ data: { sessionId: child.id, todos: [{ id: "1", content: "x", status: "pending", priority: "low" }] } });

    const events = record(ctx.bus, team.teamId);
    await Session.remove(ctx, root.id);

    const deleted = events.events.filter((e) => e.name === "session.deleted");
    expect(deleted).toHaveLength(4);
    expect(new Set(deleted.map((e) => e.scope.sessionId))).toEqual(new Set(doomed));
    // Deepest first: the root goes last, the grandchild before its parent.
    const order = deleted.map((e) => e.scope.sessionId);
    expect(order.at(-1)).toBe(root.id);
    expect(order.indexOf(grandchild.id)).toBeLessThan(order.indexOf(child.id));
    expect((deleted.at(-1)?.payload as { info: Info }).info.id).toBe(root.id);

    expect(await db.session.count({ where: { id: { in: doomed } } })).toBe(0);
    expect(await db.message.count({ where: { sessionId: { in: doomed } } })).toBe(0);
    expect(await db.part.count({ where: { sessionId: { in: doomed } } })).toBe(0);
    expect(await db.share.count({ where: { sessionId: { in: doomed } } })).toBe(0);
    expect(await db.todo.count({ where: { sessionId: { in: doomed } } })).toBe(0);
    for (const id of doomed) await parleyError(Session.get(ctx, id), "NOT_FOUND");

    // Everything else is untouched.
    expect((await Session.get(ctx, bystander.id)).id).toBe(bystander.id);
    expect(await db.message.count({ where: { sessionId: bystander.id } })).toBe(4);
    expect(await db.part.count({ where: { sessionId: bystander.id } })).toBe(10);

    await parleyError(Session.remove(ctx, root.id), "NOT_FOUND");
  });
});

describe("remove a corrupt session", () => {
  it("deletes a session whose JSON columns no longer match the schema", async () => {
    const { makeTeam: team } = await import("../../test/db");
    const { ctx, projectId } = await team();
    const info = await Session.create(ctx, { projectId });
    await ctx.db.session.update({ where: { id: info.id }, data: { permission: { not: "a ruleset" } } });
    await expect(Session.get(ctx, info.id)).rejects.toMatchObject({ code: "CORRUPT" });
    await Session.remove(ctx, info.id);
    expect(await ctx.db.session.findUnique({ where: { id: info.id } })).toBeNull();
  });
});
