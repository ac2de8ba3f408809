import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Request as PermissionRequest } from "../server/permission/events";
import type { Info as ProjectInfo } from "../server/project/project";
import type { Info } from "../server/session/info";
import type { Part } from "../server/session/message";
import { captureConsole } from "./console";
import { filesContaining } from "./files";
import { memberCalls, projectAppEnv, trpcAnswer, until } from "./app";
import { appSuite, gitServerSuite } from "./suite";
import { type Browser, joinTeam, signUp } from "./auth";
import type { WorkspaceStatus } from "../server/workspace/publish";
import { WorkspaceRepo } from "../server/workspace/repo";
import { commitToBare, createBareRepo, git } from "./git-server";
import { holdCalls } from "./gate";
import { settled } from "./session-harness";

/**
 * Session workspaces of a git-backed project, through the real tRPC Route Handler with
 * real sign-in cookies, the offline model driving the real tools in the real sandbox, and
 * a real git server (git http-backend behind basic auth) holding the team's repository:
 * what an agent can reach of git from `bash` (issue 31, acceptance 3).
 */

const TOKEN = "ghp-Wk4sP9vX2mQ7tZ1nB8cR5yL3";


describe("session workspaces of a git-backed project (integration, through HTTP)", () => {
  const logged: string[] = [];
  const recorded: unknown[] = [];
  beforeAll(() => captureConsole(logged));
  const server = gitServerSuite({ robot: TOKEN }, (started) => createBareRepo(started.root, "shop", { head: "main", files: { "README.md": "# Shop\n", "src/app.ts": "export const x = 1;\n" } }));
  let dataDir: string;
  const app = appSuite("workspaces", (dir) => {
    dataDir = path.join(dir, "data");
    return projectAppEnv(dir, { PARLEY_SIGNUP: "invite", PARLEY_OFFLINE_TPS: "0", PARLEY_GIT_ALLOW_HTTP: "true" });
  });
  let ann: Browser;
  let mia: Browser;
  let bob: Browser;
  let project: ProjectInfo;

  const { ok } = memberCalls(() => app);
  const storeOf = () => path.join(dataDir, "workspaces", project.id, "store.git");
  const refsOf = (gitDir: string) => git(gitDir, "-c", "safe.directory=*", "for-each-ref", "--format=%(refname) %(objectname)");

  beforeAll(async () => {
    app.rt.services.bus.subscribeAll((event) => recorded.push(event));
    const auth = await (await import("../server/auth/instance")).getAuth();
    const { memberContext } = await import("../server/context");
    ann = await signUp(auth, "ann@workspaces.test", "Ann");
    const teamId = (await memberContext(ann.headers)).actor.teamId;
    mia = await joinTeam(auth, ann, teamId, "mia@workspaces.test", { role: "member", name: "Mia" });
    bob = await joinTeam(auth, ann, teamId, "bob@workspaces.test", { role: "member", name: "Bob" });
    await ok("secret.set", { name: "shop-token", kind: "git-token", value: TOKEN }, ann);
    project = await ok<ProjectInfo>("project.clone", { url: server.httpUrl("shop"), credential: "shop-token", user: "robot", pullRequestUrl: "https://forge.test/shop/compare/{branch}" }, ann);
  });

  afterAll(() => {
    vi.restoreAllMocks();
  });

  /** Run one bash command in a session (the offline model calls bash; the member allows it once) and return the call's state. */
  async function runOnce(who: Browser, sessionId: string, command: string) {
    await ok("session.prompt", { sessionId, parts: [{ type: "text", text: `run \`${command}\`` }] }, who);
    const asked = await until("the permission question", async () => (await ok<PermissionRequest[]>("permission.pending", { sessionId }, who))[0]);
    await ok("permission.reply", { requestId: asked.id, reply: "once" }, who);
    await settled(app.rt.services, sessionId, 30_000);
    const page = await ok<{ messages: { parts: Part[] }[] }>("message.page", { sessionId }, who);
    const state = page.messages.flatMap((m) => m.parts).flatMap((p) => (p.type === "tool" && p.tool === "bash" ? [p.state] : [])).at(-1);
    if (state?.status !== "completed") throw new Error(`the command did not complete: ${JSON.stringify(state)}`);
    return state.output;
  }

  it("W3: from bash, a session cannot move another session's branch, the default branch or the project's refs, and sees no credential in env, .git/config, git config or git remote", async () => {
    const mine = await ok<Info>("session.create", { projectId: project.id, title: "W3 Mia" }, mia);
    const theirs = await ok<Info>("session.create", { projectId: project.id, title: "W3 Bob" }, bob);
    // Bob's session has its workspace and a change of its own.
    expect(await runOnce(bob, theirs.id, "echo bob > bob.txt && git status --short")).toContain("bob.txt");
    const theirBranch = (await app.rt.services.db.workspace.findUniqueOrThrow({ where: { id: theirs.workspaceId ?? "" } })).branch;
    // Mia's workspace exists before the refs are read (its branch is made with it).
    await app.rt.services.workspaces.ready(mine.workspaceId ?? "");
    const before = { store: refsOf(storeOf()), project: refsOf(path.join(project.directory, ".git")), bob: refsOf(path.join(theirs.directory, ".git")) };
    const remoteBefore = git(server.root, "--git-dir", path.join(server.root, "shop.git"), "for-each-ref");

    const attacks = [
      "git update-ref refs/heads/main HEAD~0; echo update-ref=$?",
      `git branch -f ${theirBranch} HEAD; echo branch-f=$?`,
      `git push ${project.directory} HEAD:refs/heads/main; echo push-project=$?`,
      `git push ${storeOf()} HEAD:refs/heads/${theirBranch}; echo push-store=$?`,
      `git push ${theirs.directory} HEAD:refs/heads/${theirBranch}; echo push-bob=$?`,
      `git push ${server.httpUrl("shop")} HEAD:refs/heads/main; echo push-remote=$?`,
      `touch ${path.join(storeOf(), "objects", "planted")}; echo touch-store=$?`,
      `echo x > ${path.join(theirs.directory, "planted.txt")}; echo write-bob=$?`,
      "git -c user.name=Mia -c user.email=mia@x commit -q --allow-empty -m mine; echo commit=$?",
      "echo ENV; env; echo CONFIG; cat .git/config; git config -l; echo REMOTE; git remote -v; echo END",
    ].join("; ");
    const output = await runOnce(mia, mine.id, attacks);
    // In its own clone: allowed, and only there.
    expect(output).toMatch(/update-ref=0/);
    expect(output).toMatch(/commit=0/);
    // Anything else: refused (nothing of it is in the sandbox, and its network is off).
    for (const attempt of ["push-project", "push-store", "push-bob", "push-remote", "touch-store", "write-bob"]) expect(output).toMatch(new RegExp(`${attempt}=[1-9]`));
    expect(refsOf(storeOf())).toBe(before.store);
    expect(refsOf(path.join(project.directory, ".git"))).toBe(before.project);
    expect(refsOf(path.join(theirs.directory, ".git"))).toBe(before.bob);
    expect(git(server.root, "--git-dir", path.join(server.root, "shop.git"), "for-each-ref")).toBe(remoteBefore);
    expect(existsSync(path.join(theirs.directory, "planted.txt"))).toBe(false);
    expect(existsSync(path.join(storeOf(), "objects", "planted"))).toBe(false);
    // No credential anywhere the agent looked, nor in any file of the workspaces or the project.
    expect(output).toContain("END");
    expect(output).not.toContain(TOKEN);
    expect(output).not.toMatch(/PARLEY_GIT|DATABASE_URL|robot@|x-access-token/);
    expect(filesContaining(path.join(dataDir, "workspaces"), TOKEN)).toEqual([]);
    expect(filesContaining(project.directory, TOKEN)).toEqual([]);
    expect(logged.filter((line) => line.includes(TOKEN))).toEqual([]);
  });

  it("W3: a member cannot start a session from a branch the project does not have", async () => {
    const res = await trpcAnswer<Info>(app, "session.create", { projectId: project.id, branch: "no-such-branch" }, mia.headers);
    expect(res.status).toBe(400);
    expect(res.message).toMatch(/has no branch no-such-branch/);
  });
  /** A prompt answered to its end: every permission question on the way is allowed once. */
  async function turn(who: Browser, sessionId: string, text: string): Promise<void> {
    await ok("session.prompt", { sessionId, parts: [{ type: "text", text }] }, who);
    for (let i = 0; i < 200; i++) {
      const [asked] = await ok<PermissionRequest[]>("permission.pending", { sessionId }, who);
      if (asked) await ok("permission.reply", { requestId: asked.id, reply: "once" }, who);
      const row = await app.rt.services.db.session.findUniqueOrThrow({ where: { id: sessionId }, select: { status: true } });
      if (row.status === "idle" && !asked) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await settled(app.rt.services, sessionId, 30_000);
  }

  const shopBare = () => path.join(server.root, "shop.git");
  const bare = (...args: string[]) => git(server.root, "--git-dir", shopBare(), ...args).trim();

  describe("getting the work out (acceptance 4)", () => {
    let sessionId: string;
    let workspace: string;
    let branch: string;

    it("W4: commit (the small model drafts the message, the member is the author) and push: the remote branch holds exactly the session's commit; the pull-request link follows the template", async () => {
      const session = await ok<Info>("session.create", { projectId: project.id, title: "W4 cart" }, mia);
      sessionId = session.id;
      workspace = session.directory;
      await turn(mia, sessionId, "write src/cart.ts: export const cart = [];");
      expect(readFileSync(path.join(workspace, "src", "cart.ts"), "utf8")).toContain("export const cart = [];");
      const before = await ok<WorkspaceStatus>("workspace.status", { sessionId }, mia);
      branch = before.branch;
      expect(branch).toMatch(/^parley\/[a-z]+-[a-z]+-\d+-[A-Za-z0-9_-]{6}$/);
      expect(before).toMatchObject({ state: "ready", uncommitted: true, commits: 0, pushed: false, remote: true, live: true, changes: { files: 1, additions: 1, deletions: 0 } });
      const diff = await ok<{ files: { file: string }[]; text: string }>("workspace.diff", { sessionId }, mia);
      expect(diff.files.map((f) => f.file)).toEqual(["src/cart.ts"]);
      expect(diff.text).toContain("+export const cart = [];");
      const { message } = await ok<{ message: string }>("workspace.draftMessage", { sessionId }, mia);
      expect(message).toBe("Add src/cart.ts");
      // Another member may not commit in Mia's session.
      expect((await trpcAnswer(app, "workspace.commit", { sessionId, message }, bob.headers)).status).toBe(403);
      const committed = await ok<WorkspaceStatus>("workspace.commit", { sessionId, message: `${message}\n\nThe cart starts empty.` }, mia);
      expect(committed).toMatchObject({ uncommitted: false, commits: 1, pushed: false });
      // The agent's own clone follows: its log has the commit, its status is clean.
      expect(git(workspace, "-c", "safe.directory=*", "log", "-1", "--format=%s")).toBe("Add src/cart.ts\n");
      expect(git(workspace, "-c", "safe.directory=*", "status", "--porcelain")).toBe("");
      const pushed = await ok<WorkspaceStatus>("workspace.push", { sessionId }, mia);
      expect(pushed).toMatchObject({ pushed: true, pushedCommit: committed.head, pullRequestUrl: `https://forge.test/shop/compare/${branch}` });
      expect(bare("rev-parse", `refs/heads/${branch}`)).toBe(committed.head);
      expect(bare("rev-list", "--count", `refs/heads/main..refs/heads/${branch}`)).toBe("1");
      expect(bare("log", "-1", "--format=%an <%ae>|%s", `refs/heads/${branch}`)).toBe("Mia <mia@workspaces.test>|Add src/cart.ts");
      expect(bare("show", `refs/heads/${branch}:src/cart.ts`)).toContain("export const cart = [];");
    });

    it("W4: update from base brings the remote's new commits into the branch and the files; a conflict names the files and changes nothing", async () => {
      commitToBare(shopBare(), "main", { "README.md": "# Shop\n\nNow with a cart.\n" });
      await ok("project.fetch", { projectId: project.id }, mia);
      const before = await ok<WorkspaceStatus>("workspace.status", { sessionId }, mia);
      const updated = await ok<{ kind: string; changedFiles: string[]; status: WorkspaceStatus }>("workspace.update", { sessionId }, mia);
      expect(updated.kind).toBe("updated");
      expect(updated.changedFiles).toEqual(["README.md"]);
      expect(readFileSync(path.join(workspace, "README.md"), "utf8")).toBe("# Shop\n\nNow with a cart.\n");
      expect(updated.status.commits).toBe(before.commits + 1);
      expect(updated.status.uncommitted).toBe(false);
      // A change on the remote to the session's own file: a conflict, nothing changed.
      commitToBare(shopBare(), "main", { "src/cart.ts": "export const cart = ['from the remote'];\n" });
      await ok("project.fetch", { projectId: project.id }, mia);
      const head = (await ok<WorkspaceStatus>("workspace.status", { sessionId }, mia)).head;
      const cart = readFileSync(path.join(workspace, "src", "cart.ts"), "utf8");
      const conflict = await ok<{ kind: string; files: string[] }>("workspace.update", { sessionId }, mia);
      expect(conflict).toEqual({ kind: "conflict", files: ["src/cart.ts"] });
      expect((await ok<WorkspaceStatus>("workspace.status", { sessionId }, mia)).head).toBe(head);
      expect(readFileSync(path.join(workspace, "src", "cart.ts"), "utf8")).toBe(cart);
      expect(readFileSync(path.join(workspace, "README.md"), "utf8")).toBe("# Shop\n\nNow with a cart.\n");
    });

    it("W4: the patch series applies with git am on the base; the whole diff downloads too", async () => {
      const status = await ok<WorkspaceStatus>("workspace.status", { sessionId }, mia);
      const series = await ok<{ filename: string; text: string }>("workspace.patch", { sessionId, kind: "series" }, mia);
      expect(series.filename).toBe(`${branch.replaceAll("/", "-")}.patch`);
      const work = mkdtempSync(path.join(os.tmpdir(), "parley-am-"));
      try {
        git(work, "clone", "-q", shopBare(), "w");
        const clone = path.join(work, "w");
        git(clone, "checkout", "-q", status.baseCommit ?? "");
        writeFileSync(path.join(work, "series.patch"), series.text);
        git(clone, "-c", "user.name=T", "-c", "user.email=t@t", "am", "-q", path.join(work, "series.patch"));
        expect(readFileSync(path.join(clone, "src", "cart.ts"), "utf8")).toContain("export const cart = [];");
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
      const diff = await ok<{ filename: string; text: string }>("workspace.patch", { sessionId, kind: "diff" }, mia);
      expect(diff.text).toContain("src/cart.ts");
    });

    it("W4: merge into the default branch of a project without a remote (its checked-out files follow); a project with a remote refuses merge", async () => {
      expect((await trpcAnswer(app, "workspace.merge", { sessionId }, mia.headers)).message).toMatch(/has a remote: push/);
      const local = await ok<ProjectInfo>("project.createEmpty", { folder: "notes", name: "Notes" }, ann);
      const session = await ok<Info>("session.create", { projectId: local.id, title: "W4 notes" }, mia);
      await turn(mia, session.id, "write todo.md: - buy milk");
      const { message } = await ok<{ message: string }>("workspace.draftMessage", { sessionId: session.id }, mia);
      await ok("workspace.commit", { sessionId: session.id, message }, mia);
      const merged = await ok<{ kind: string; status: WorkspaceStatus }>("workspace.merge", { sessionId: session.id }, mia);
      expect(merged.kind).toBe("merged");
      expect(merged.status.merged).toBe(true);
      expect(git(local.directory, "log", "-1", "--format=%an|%s", "main")).toBe(`Mia|${message}\n`);
      expect(readFileSync(path.join(local.directory, "todo.md"), "utf8")).toContain("buy milk");
      expect(git(local.directory, "status", "--porcelain")).toBe("");
    });

    it("W4: a prompt sent while a commit runs is answered once the commit is done; members asking for the status at once cost one reading of the files", async () => {
      await turn(mia, sessionId, "write src/later.ts: export const later = 1;");
      const held = holdCalls(WorkspaceRepo.prototype, "commit");
      try {
        const committing = ok<WorkspaceStatus>("workspace.commit", { sessionId, message: "Later" }, mia);
        await until("the commit holding the session", async () => (held.calls > 0 ? true : undefined));
        await ok("session.prompt", { sessionId, parts: [{ type: "text", text: "say hello" }] }, mia);
        held.release();
        expect((await committing).commits).toBeGreaterThan(0);
      } finally {
        held.restore();
      }
      await until("the prompt's answer", async () => {
        const page = await ok<{ messages: { info: { role: string }; parts: Part[] }[] }>("message.page", { sessionId, limit: 200 }, mia);
        const last = page.messages.at(-1);
        return last?.info.role === "assistant" && last.parts.some((p) => p.type === "text") ? true : undefined;
      });
      await settled(app.rt.services, sessionId, 30_000);

      const readings = vi.spyOn(WorkspaceRepo.prototype, "workTreeTree");
      try {
        await app.rt.services.db.workspace.update({ where: { id: (await ok<Info>("session.get", { sessionId }, mia)).workspaceId ?? "" }, data: { dirty: true } });
        const answers = await Promise.all([mia, bob, ann, mia].map((who) => ok<WorkspaceStatus>("workspace.status", { sessionId }, who)));
        expect(new Set(answers.map((a) => a.head)).size).toBe(1);
        expect(readings).toHaveBeenCalledTimes(1);
      } finally {
        readings.mockRestore();
      }
    });

    it("W4: the token is in no event, log line, tool output, share page or saved output of these flows", async () => {
      const events = JSON.stringify(recorded);
      expect(events).not.toContain(TOKEN);
      expect(logged.filter((line) => line.includes(TOKEN))).toEqual([]);
      const page = await ok<{ messages: { parts: Part[] }[] }>("message.page", { sessionId, limit: 200 }, mia);
      expect(JSON.stringify(page)).not.toContain(TOKEN);
      const shared = await ok<{ share: { id: string } }>("session.share", { sessionId }, mia);
      const sharePage = await trpcAnswer(app, "share.page", { shareId: shared.share.id }, new Headers());
      expect(sharePage.status).toBe(200);
      expect(sharePage.text).not.toContain(TOKEN);
      expect(filesContaining(path.join(dataDir, "tool-output"), TOKEN)).toEqual([]);
      expect(filesContaining(path.join(dataDir, "workspaces"), TOKEN)).toEqual([]);
      expect(filesContaining(path.join(dataDir, "snapshot"), TOKEN)).toEqual([]);
    });
  });
});
