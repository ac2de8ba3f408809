import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeTeam } from "../../test/db";
import { parleyError } from "../../test/fixtures";
import { testServices } from "../../test/runtime";
import { Bus } from "../bus/bus";
import { Dashboard } from "../dashboard";
import { Project } from "../project";
import { Session } from "../session";
import { Workspace } from ".";
import { storeOf } from "./workspace";

/**
 * The lifecycle of session workspaces (issue 31, point 5): the cap on live workspaces per
 * project, what deleting a session removes (its working tree always, its branch unless it
 * holds unmerged commits), what lists show, and the disk use admins see.
 */

const dataDir = mkdtempSync(path.join(os.tmpdir(), "parley-ws-life-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function team(limit = 50, spareWorkspaces = 0) {
  const services = testServices(new Bus(), { settings: { dataDir, forbidden: [dataDir], limits: { workspacesPerProject: limit, spareWorkspaces } } });
  return makeTeam({ services });
}

const git = (args: string[]) => execFileSync("git", args, { encoding: "utf8" }).trim();
const sparesOf = (projectId: string) => {
  const folder = path.join(dataDir, "workspaces", projectId, "spares");
  return existsSync(folder) ? readdirSync(folder) : [];
};

const refs = (store: string) => execFileSync("git", ["--git-dir", store, "for-each-ref", "--format=%(refname)", "refs/heads"], { encoding: "utf8" }).trim().split("\n").filter(Boolean);

describe("session workspaces: lifecycle (integration, real git)", () => {
  it("W5: a project has at most limits.workspacesPerProject live workspaces: the next session gets a clear CONFLICT; deleting one frees its place", async () => {
    const { ctx, projectId } = await team(2);
    const first = await Session.create(ctx, { projectId });
    await Session.create(ctx, { projectId });
    const refused = await parleyError(Session.create(ctx, { projectId }), "CONFLICT");
    expect(refused.message).toMatch(/2 live workspaces, the most it may have \(limits\.workspacesPerProject = 2\)/);
    // A child shares its parent's workspace: it takes no place.
    expect((await Session.create(ctx, { projectId, parentId: first.id })).workspaceId).toBe(first.workspaceId);
    await Session.remove(ctx, first.id);
    expect((await Session.create(ctx, { projectId })).workspaceId).toMatch(/^wsp_/);
  });

  it("W5: deleting a session removes its working tree; its branch stays when it holds a commit, and goes when it holds none", async () => {
    const { ctx, projectId } = await team();
    const kept = await Session.create(ctx, { projectId, title: "kept" });
    const empty = await Session.create(ctx, { projectId, title: "empty" });
    const keptTree = (await ctx.workspaces.ready(kept.workspaceId ?? "")).directory;
    const emptyTree = (await ctx.workspaces.ready(empty.workspaceId ?? "")).directory;
    writeFileSync(path.join(keptTree, "work.txt"), "work\n");
    await Workspace.commit(ctx, { sessionId: kept.id, message: "Work" });
    const rows = await ctx.db.workspace.findMany({ where: { id: { in: [kept.workspaceId ?? "", empty.workspaceId ?? ""] } } });
    const branchOf = (id: string | undefined) => rows.find((row) => row.id === id)?.branch ?? "";
    const store = storeOf(dataDir, projectId);
    expect(refs(store)).toEqual(expect.arrayContaining([`refs/heads/${branchOf(kept.workspaceId)}`, `refs/heads/${branchOf(empty.workspaceId)}`]));
    await Session.remove(ctx, kept.id);
    await Session.remove(ctx, empty.id);
    expect(existsSync(keptTree)).toBe(false);
    expect(existsSync(emptyTree)).toBe(false);
    expect(refs(store)).toContain(`refs/heads/${branchOf(kept.workspaceId)}`);
    expect(refs(store)).not.toContain(`refs/heads/${branchOf(empty.workspaceId)}`);
    expect((await ctx.db.workspace.findMany({ where: { projectId } })).map((row) => row.state)).toEqual(["removed", "removed"]);
  });

  it("W5: the dashboard and the session list show each session's branch and where its work stands", async () => {
    const { ctx, projectId } = await team();
    const session = await Session.create(ctx, { projectId, title: "listed" });
    const badge = async () => (await Dashboard.list(ctx, { projectId })).items.find((item) => item.session.id === session.id)?.workspace;
    const branch = (await ctx.db.workspace.findUniqueOrThrow({ where: { id: session.workspaceId ?? "" } })).branch;
    expect(await badge()).toEqual({ branch, state: "pending", uncommitted: false, commits: "none" });
    const tree = (await ctx.workspaces.ready(session.workspaceId ?? "")).directory;
    writeFileSync(path.join(tree, "listed.txt"), "listed\n");
    await Workspace.commit(ctx, { sessionId: session.id, message: "Listed" });
    expect(await badge()).toEqual({ branch, state: "ready", uncommitted: false, commits: "unpushed" });
    const listed = (await Session.list(ctx, { projectId })).items.find((item) => item.id === session.id);
    expect(listed?.workspace).toEqual({ branch, state: "ready", uncommitted: false, commits: "unpushed" });
  });

  it("W5: owners and admins see each project's disk use and its live workspaces against the cap", async () => {
    const { ctx, projectId } = await team(7);
    const session = await Session.create(ctx, { projectId });
    const tree = (await ctx.workspaces.ready(session.workspaceId ?? "")).directory;
    writeFileSync(path.join(tree, "big.bin"), Buffer.alloc(256 * 1024, 1));
    const [usage] = await Workspace.usage(ctx);
    expect(usage).toMatchObject({ projectId, liveWorkspaces: 1, maxWorkspaces: 7 });
    expect(usage?.workspacesBytes).toBeGreaterThan(256 * 1024);
    expect(usage?.projectBytes).toBeGreaterThan(0);
    const member = await ctx.db.user.create({ data: { id: `usr_${Date.now()}member`, email: `member-${Date.now()}@test.local`, name: "Member" } });
    await ctx.db.membership.create({ data: { teamId: ctx.actor.teamId, userId: member.id, role: "member" } });
    await parleyError(Workspace.usage({ ...ctx, actor: { ...ctx.actor, userId: member.id } }), "FORBIDDEN");
  });
  it("W5: a working tree an attempt left half made (its branch pointing anywhere, its folder there) does not stop the next attempt", async () => {
    const { ctx, projectId } = await team();
    const first = await Session.create(ctx, { projectId });
    await ctx.workspaces.ready(first.workspaceId ?? "");
    const session = await Session.create(ctx, { projectId });
    const row = await ctx.db.workspace.findUniqueOrThrow({ where: { id: session.workspaceId ?? "" } });
    // As a process killed after the branch and some files were made, before the row said so —
    // and the project's branch moved on since.
    const store = storeOf(dataDir, projectId);
    const project = await ctx.db.project.findUniqueOrThrow({ where: { id: projectId } });
    writeFileSync(path.join(project.directory, "moved.txt"), "moved\n");
    execFileSync("git", ["-C", project.directory, "add", "moved.txt"]);
    execFileSync("git", ["-C", project.directory, "-c", "user.name=T", "-c", "user.email=t@t", "commit", "-qm", "Moved"]);
    const old = execFileSync("git", ["-C", project.directory, "rev-parse", "HEAD~1"], { encoding: "utf8" }).trim();
    execFileSync("git", ["--git-dir", store, "update-ref", `refs/heads/${row.branch}`, old]);
    mkdirSync(path.join(row.directory, "half"), { recursive: true });
    const ready = await ctx.workspaces.ready(row.id);
    expect(existsSync(path.join(ready.directory, "moved.txt"))).toBe(true);
    expect(existsSync(path.join(ready.directory, "half"))).toBe(false);
    expect(execFileSync("git", ["--git-dir", store, "rev-parse", `refs/heads/${row.branch}`], { encoding: "utf8" }).trim()).toBe(execFileSync("git", ["-C", project.directory, "rev-parse", "HEAD"], { encoding: "utf8" }).trim());
  });

  it("W6: after a workspace is made the project keeps a spare tree at its base; the next workspace is that tree (renamed into place) on its own branch, clean, and a new spare follows", async () => {
    const { ctx, projectId } = await team(50, 1);
    const project = await ctx.db.project.findUniqueOrThrow({ where: { id: projectId } });
    mkdirSync(path.join(project.directory, "src", "deep"), { recursive: true });
    writeFileSync(path.join(project.directory, "README.md"), "# readme\n");
    writeFileSync(path.join(project.directory, "src", "deep", "data.bin"), Buffer.from([0, 1, 2, 255, 13, 10]));
    const first = await Session.create(ctx, { projectId });
    await ctx.workspaces.ready(first.workspaceId ?? "");
    await ctx.workspaces.spares.settled();
    const base = git(["-C", project.directory, "rev-parse", "HEAD"]);
    const [spare] = sparesOf(projectId);
    expect(spare).toMatch(new RegExp(`^${base}-[0-9a-f]{12}$`));
    const spareInode = statSync(path.join(dataDir, "workspaces", projectId, "spares", spare ?? "")).ino;

    const second = await Session.create(ctx, { projectId });
    const row = await ctx.db.workspace.findUniqueOrThrow({ where: { id: second.workspaceId ?? "" } });
    const tree = (await ctx.workspaces.ready(row.id)).directory;
    expect(statSync(tree).ino).toBe(spareInode);
    expect(git(["-C", tree, "symbolic-ref", "HEAD"])).toBe(`refs/heads/${row.branch}`);
    expect(git(["-C", tree, "rev-parse", "HEAD"])).toBe(base);
    expect(git(["-C", tree, "status", "--porcelain"])).toBe("");
    expect(git(["--git-dir", storeOf(dataDir, projectId), "rev-parse", `refs/heads/${row.branch}`])).toBe(base);
    const files = git(["-C", project.directory, "ls-files"]).split("\n").filter(Boolean);
    expect(files).toEqual(["README.md", "src/deep/data.bin"]);
    for (const file of files) expect(readFileSync(path.join(tree, file))).toEqual(readFileSync(path.join(project.directory, file)));
    // What the session does is its own: a change shows in its summary of changes as usual.
    writeFileSync(path.join(tree, "mine.txt"), "mine\n");
    expect((await Workspace.status(ctx, { sessionId: second.id })).uncommitted).toBe(true);
    await ctx.workspaces.spares.settled();
    const [next] = sparesOf(projectId);
    expect(next).toMatch(new RegExp(`^${base}-`));
    expect(next).not.toBe(spare);
  });

  it("W6: once the base branch moves, a spare at the old base is never taken (the new workspace holds the new commit) and the next refill removes it", async () => {
    const { ctx, projectId } = await team(50, 1);
    await ctx.workspaces.ready((await Session.create(ctx, { projectId })).workspaceId ?? "");
    await ctx.workspaces.spares.settled();
    const [stale] = sparesOf(projectId);
    const project = await ctx.db.project.findUniqueOrThrow({ where: { id: projectId } });
    writeFileSync(path.join(project.directory, "moved.txt"), "moved\n");
    execFileSync("git", ["-C", project.directory, "add", "moved.txt"]);
    execFileSync("git", ["-C", project.directory, "-c", "user.name=T", "-c", "user.email=t@t", "commit", "-qm", "Moved"]);
    const moved = git(["-C", project.directory, "rev-parse", "HEAD"]);
    const tree = (await ctx.workspaces.ready((await Session.create(ctx, { projectId })).workspaceId ?? "")).directory;
    expect(readFileSync(path.join(tree, "moved.txt"), "utf8")).toBe("moved\n");
    expect(git(["-C", tree, "rev-parse", "HEAD"])).toBe(moved);
    await ctx.workspaces.spares.settled();
    const left = sparesOf(projectId);
    expect(left).not.toContain(stale);
    expect(left).toEqual([expect.stringMatching(new RegExp(`^${moved}-`))]);
  });

  it("W6: two workspaces made at once with one spare: one takes it, the other is checked out; each is its own tree on its own branch", async () => {
    const { ctx, projectId } = await team(50, 1);
    await ctx.workspaces.ready((await Session.create(ctx, { projectId })).workspaceId ?? "");
    await ctx.workspaces.spares.settled();
    const a = await Session.create(ctx, { projectId });
    const b = await Session.create(ctx, { projectId });
    const [ta, tb] = await Promise.all([ctx.workspaces.ready(a.workspaceId ?? ""), ctx.workspaces.ready(b.workspaceId ?? "")]);
    expect(ta?.directory).not.toBe(tb?.directory);
    for (const [session, ready] of [[a, ta], [b, tb]] as const) {
      const row = await ctx.db.workspace.findUniqueOrThrow({ where: { id: session.workspaceId ?? "" } });
      expect(git(["-C", ready.directory, "symbolic-ref", "HEAD"])).toBe(`refs/heads/${row.branch}`);
      expect(git(["-C", ready.directory, "status", "--porcelain"])).toBe("");
    }
    writeFileSync(path.join(ta.directory, "only-a.txt"), "a\n");
    expect(existsSync(path.join(tb.directory, "only-a.txt"))).toBe(false);
    await ctx.workspaces.spares.settled();
  });

  it("W6: with limits.spareWorkspaces 0 no spare tree is made", async () => {
    const { ctx, projectId } = await team(50, 0);
    await ctx.workspaces.ready((await Session.create(ctx, { projectId })).workspaceId ?? "");
    await ctx.workspaces.spares.settled();
    expect(sparesOf(projectId)).toEqual([]);
  });

  it("W6: unregistering a project removes its spare trees; its store (the session branches) stays", async () => {
    const { ctx, projectId } = await team(50, 1);
    const session = await Session.create(ctx, { projectId });
    await ctx.workspaces.ready(session.workspaceId ?? "");
    await ctx.workspaces.spares.settled();
    expect(sparesOf(projectId)).toHaveLength(1);
    await Session.remove(ctx, session.id);
    await Project.remove(ctx, projectId);
    expect(existsSync(path.join(dataDir, "workspaces", projectId, "spares"))).toBe(false);
    expect(existsSync(storeOf(dataDir, projectId))).toBe(true);
  });
});
