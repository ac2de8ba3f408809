import { existsSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Approval } from "../server/permission/approvals";
import type { Request as PermissionRequest } from "../server/permission/events";
import type { Info } from "../server/session/info";
import type { Part, PartOf, WithParts } from "../server/session/message";
import { type Runtime, memberCalls, projectAppEnv, until as waitFor } from "./app";
import { appSuite } from "./suite";
import type { Browser } from "./auth";
import { annInvitesBob } from "./two-teams";
import { settled } from "./session-harness";

/**
 * Issue 30, permissions and subagents, as a member and an admin of one team meet them
 * through the real tRPC Route Handler (real cookies, the offline model, the real tools and
 * sandbox): a policy question stays a question (N6), subagents nest only so deep (N10),
 * a read-only agent's subagents are read-only (N11), the parent's task call shows a
 * child's question (D4), deleting a running session stops it (D6), and a fork of a busy
 * session holds nothing "running" (D7).
 */

describe("issue 30: permissions and subagents through tRPC (integration)", () => {
  const app = appSuite("limits", (dir) => projectAppEnv(dir, { PARLEY_SIGNUP: "invite", PARLEY_OFFLINE_TPS: "0" }));
  let rt: Runtime;
  /** The team's owner. */
  let ann: Browser;
  /** A member. */
  let bob: Browser;
  let projectId: string;

  const { call, ok } = memberCalls(() => app);
  const until = <T>(what: string, read: () => Promise<T | undefined>) => waitFor(what, read, 20_000);

  const newSession = async (who: Browser, agent?: string) => (await ok<Info>("session.create", { projectId, title: "limits", ...(agent ? { agent } : {}) }, who)).id;
  const prompt = (who: Browser, sessionId: string, text: string, agent?: string) =>
    call<{ id: string }>("session.prompt", { sessionId, parts: [{ type: "text", text }], ...(agent ? { agent } : {}) }, who);
  const pendingOf = (who: Browser, sessionId: string) => ok<PermissionRequest[]>("permission.pending", { sessionId }, who);
  const asked = (who: Browser, sessionId: string) => until("a permission question", async () => (await pendingOf(who, sessionId))[0]);
  const messages = async (who: Browser, sessionId: string) => (await ok<{ messages: WithParts[] }>("message.page", { sessionId }, who)).messages;
  const parts = async (who: Browser, sessionId: string) => (await messages(who, sessionId)).flatMap((m) => m.parts);
  const tools = async (who: Browser, sessionId: string, tool: string) => (await parts(who, sessionId)).filter((p): p is PartOf<"tool"> => p.type === "tool" && p.tool === tool);
  const children = (who: Browser, sessionId: string) => ok<Info[]>("session.children", { sessionId }, who);
  /** Sessions below `sessionId`, all levels. */
  async function descendants(who: Browser, sessionId: string): Promise<Info[]> {
    const direct = await children(who, sessionId);
    const below = await Promise.all(direct.map((child) => descendants(who, child.id)));
    return [...direct, ...below.flat()];
  }

  beforeAll(async () => {
    rt = app.rt;
    ({ ann, bob, projectId } = await annInvitesBob(app, "limits", { name: "Bob" }));
  });

  it("N6: a member cannot turn the team policy's `ask` into allow; an admin's \"always\" can, for the whole team, and the Approvals page names it", async () => {
    // Bob always-allowed `printf *` before the policy existed.
    const early = await newSession(bob);
    await ok("session.prompt", { sessionId: early, parts: [{ type: "text", text: "run `printf early`" }] }, bob);
    const first = await asked(bob, early);
    expect(first.policy).toBeUndefined();
    await ok("permission.reply", { requestId: first.id, reply: "always" }, bob);
    await settled(rt.services, early);

    await ok("permission.setPolicy", { rules: [{ permission: "bash", pattern: "*", action: "ask" }] }, ann);
    try {
      // The member's old approval no longer answers the policy's question.
      const mine = await newSession(bob);
      await ok("session.prompt", { sessionId: mine, parts: [{ type: "text", text: "run `printf member`" }] }, bob);
      const question = await asked(bob, mine);
      expect(question).toMatchObject({ permission: "bash", patterns: ["printf member"], always: ["printf *"], policy: true });
      // A crafted "always" from the member is refused; "once" is fine.
      const crafted = await call("permission.reply", { requestId: question.id, reply: "always" }, bob);
      expect(crafted.status).toBe(403);
      expect(crafted.message).toMatch(/only team owners and admins can always allow it/);
      await ok("permission.reply", { requestId: question.id, reply: "once" }, bob);
      await settled(rt.services, mine);
      expect((await tools(bob, mine, "bash")).at(-1)?.state).toMatchObject({ status: "completed", output: "member" });

      // The admin's own session still asks (nothing the member did loosened it) — and even
      // the admin's allow-everything session rules do not answer a policy question.
      const admins = (await ok<Info>("session.create", { projectId, title: "admin", permission: [{ permission: "*", pattern: "*", action: "allow" }] }, ann)).id;
      await ok("session.prompt", { sessionId: admins, parts: [{ type: "text", text: "run `echo admin`" }] }, ann);
      const adminQuestion = await asked(ann, admins);
      expect(adminQuestion).toMatchObject({ patterns: ["echo admin"], policy: true });
      expect(await ok<{ allowed: boolean }>("permission.canBypassPolicy", undefined, bob)).toEqual({ allowed: false });
      expect(await ok<{ allowed: boolean }>("permission.canBypassPolicy", undefined, ann)).toEqual({ allowed: true });

      // The admin's "always" is stored and bypasses the question for the whole team.
      await ok("permission.reply", { requestId: adminQuestion.id, reply: "always" }, ann);
      await settled(rt.services, admins);
      const approvals = await ok<Approval[]>("permission.approvals", { projectId }, bob);
      expect(approvals.find((a) => a.grantedBy?.id === ann.userId)).toMatchObject({ permission: "bash", pattern: "echo *", byAdmin: true });
      expect(approvals.find((a) => a.grantedBy?.id === bob.userId)).toMatchObject({ pattern: "printf *", byAdmin: false });
      const later = await newSession(bob);
      await ok("session.prompt", { sessionId: later, parts: [{ type: "text", text: "run `echo allowed`" }] }, bob);
      await settled(rt.services, later);
      expect((await tools(bob, later, "bash")).at(-1)?.state).toMatchObject({ status: "completed", output: "allowed" });
      expect(await rt.services.db.permissionRequest.count({ where: { sessionId: later } })).toBe(0);
    } finally {
      await ok("permission.setPolicy", { rules: [] }, ann);
      for (const approval of await ok<Approval[]>("permission.approvals", {}, ann)) await ok("permission.revoke", { approvalId: approval.id }, ann);
    }
  });

  it("N10: subagents nest at most two levels: deeper `@general` prompts are refused, and a session at the cap starts none", async () => {
    const root = await newSession(bob);
    await ok("session.prompt", { sessionId: root, parts: [{ type: "text", text: "@general @general @general @general @general list files" }] }, bob);
    await settled(rt.services, root, 30_000);
    const below = await descendants(bob, root);
    expect(below).toHaveLength(1);
    const [child] = below;
    // The child's own `@general` became a task call refused with a clear error; no grandchild was made.
    const refused = await tools(bob, child!.id, "task");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.state).toMatchObject({ status: "error", error: expect.stringMatching(/Subagents cannot go deeper: subagent sessions nest at most 2 levels/) });

    // Two levels are fine: root → child → grandchild.
    const second = await newSession(bob);
    await ok("session.prompt", { sessionId: second, parts: [{ type: "text", text: "@general @general list files" }] }, bob);
    await settled(rt.services, second, 30_000);
    const [level1] = await children(bob, second);
    const [level2] = await children(bob, level1!.id);
    expect(level2).toBeDefined();
    expect(await tools(bob, level2!.id, "list")).toHaveLength(1);

    // In the session at the cap, an `@agent` prompt is refused…
    const deeper = await prompt(bob, level2!.id, "@explore list files");
    expect(deeper.status).toBe(400);
    expect(deeper.message).toMatch(/Subagents cannot go deeper/);
    // …and the task tool is not offered, even to an agent that has it (the model says it has no such tool); no child is made.
    await ok("session.prompt", { sessionId: level2!.id, parts: [{ type: "text", text: "use a subagent to list files" }], agent: "build" }, bob);
    await settled(rt.services, level2!.id, 30_000);
    expect(await children(bob, level2!.id)).toHaveLength(0);
    expect(await tools(bob, level2!.id, "task")).toHaveLength(0);
    const said = (await parts(bob, level2!.id)).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
    expect(said).toMatch(/I would need the `task` tool .* not available to me here/);
  });

  /** Where a session's files are: its workspace. */
  const directoryOf = async (sessionId: string) => (await rt.services.db.session.findUniqueOrThrow({ where: { id: sessionId } })).directory;

  it("N11: a subagent started from the read-only plan agent cannot write files or run commands", async () => {
    const planned = await newSession(bob, "plan");
    await ok("session.prompt", { sessionId: planned, parts: [{ type: "text", text: "@general write plan-leak.txt: written by a subagent of plan" }], agent: "plan" }, bob);
    await settled(rt.services, planned, 30_000);
    const plannedDir = await directoryOf(planned);
    expect(existsSync(path.join(plannedDir, "plan-leak.txt"))).toBe(false);
    const [child] = await children(bob, planned);
    expect(child?.permission).toEqual(
      expect.arrayContaining([
        { permission: "bash", pattern: "*", action: "deny" },
        { permission: "edit", pattern: "*", action: "deny" },
      ]),
    );
    expect((await tools(bob, child!.id, "write")).every((p) => p.state.status === "error")).toBe(true);

    // The model's own task call from plan: the same.
    await ok("session.prompt", { sessionId: planned, parts: [{ type: "text", text: "use a subagent to write plan-leak-2.txt: hi" }], agent: "plan" }, bob);
    await settled(rt.services, planned, 30_000);
    expect(existsSync(path.join(plannedDir, "plan-leak-2.txt"))).toBe(false);
    expect(await children(bob, planned)).toHaveLength(2);

    // The build agent's subagents still write.
    const built = await newSession(bob);
    await ok("session.prompt", { sessionId: built, parts: [{ type: "text", text: "@general write build-ok.txt: fine" }] }, bob);
    await settled(rt.services, built, 30_000);
    // Its subagent wrote in the session's own workspace, which the child shares.
    expect(existsSync(path.join(await directoryOf(built), "build-ok.txt"))).toBe(true);
  });

  /** Bob sends `text` in a new session: the session, and the state of its task call once that waits for an approval (`what`). */
  async function waitingTask(text: string, what: string) {
    const parent = await newSession(bob);
    await ok("session.prompt", { sessionId: parent, parts: [{ type: "text", text }] }, bob);
    const task = await until(what, async () => {
      const found = (await tools(bob, parent, "task"))[0];
      return found?.state.status === "running" && found.state.approval ? found : undefined;
    });
    if (task.state.status !== "running") throw new Error("the task is not running");
    return { parent, state: task.state };
  }

  /** Bob answers the question `requestId` "once" and the turn of `parent` ends: its task call. */
  async function answeredOnce(parent: string, requestId: string) {
    await ok("permission.reply", { requestId, reply: "once" }, bob);
    await settled(rt.services, parent, 30_000);
    return (await tools(bob, parent, "task"))[0];
  }

  it("D4: while a subagent waits for a permission answer, the parent's task call says so and names the question, which is answered from there", async () => {
    const { parent, state } = await waitingTask("use a subagent to run echo from-the-child", "the task call waiting for approval");
    expect(state.approval).toEqual({ permission: "bash" });
    const asking = state.metadata?.asking as { sessionId: string; permission: string } | undefined;
    const [child] = await children(bob, parent);
    expect(asking).toEqual({ sessionId: child!.id, permission: "bash" });
    // The question, read from the session the parent's card names, answered from the parent's page.
    const question = await asked(bob, asking!.sessionId);
    expect(question.patterns).toEqual(["echo from-the-child"]);
    const done = await answeredOnce(parent, question.id);
    expect(done?.state.status).toBe("completed");
  });

  it("D4: the same for a subtask the member started with `@general`", async () => {
    const { parent, state } = await waitingTask("@general run `echo subtask-child`", "the subtask waiting for approval");
    const asking = state.metadata?.asking as { sessionId: string } | undefined;
    const question = await asked(bob, asking!.sessionId);
    const done = await answeredOnce(parent, question.id);
    expect(done?.state.status).toBe("completed");
    expect(done?.state.status === "completed" ? done.state.metadata.asking : "missing").toBeNull();
  });

  it("D6: deleting a running session stops its runner and its child's before anything is deleted; nothing writes afterwards", async () => {
    const parent = await newSession(bob);
    await ok("session.prompt", { sessionId: parent, parts: [{ type: "text", text: "use a subagent to run echo never" }] }, bob);
    const [child] = await until("the child", async () => {
      const list = await children(bob, parent);
      return list.length ? list : undefined;
    });
    await asked(bob, child!.id);
    expect(rt.services.runners.get(parent)).toBeDefined();
    expect(rt.services.runners.get(child!.id)).toBeDefined();

    await ok("session.remove", { sessionId: parent }, bob);
    // Stopped, here and for every instance (the run lock is free), when the deletion returns.
    for (const id of [parent, child!.id]) {
      expect(rt.services.runners.get(id)).toBeUndefined();
      expect(await rt.services.lock.isRunning(id)).toBe(false);
    }
    expect(await rt.services.db.session.count({ where: { id: { in: [parent, child!.id] } } })).toBe(0);
    expect(await rt.services.db.message.count({ where: { sessionId: { in: [parent, child!.id] } } })).toBe(0);
    expect(await rt.services.db.part.count({ where: { sessionId: { in: [parent, child!.id] } } })).toBe(0);
  });

  it("D7: a fork of a busy session holds no open part: the running tool is aborted and the reply closed", async () => {
    const busy = await newSession(bob);
    await ok("session.prompt", { sessionId: busy, parts: [{ type: "text", text: "run `echo fork-me`" }] }, bob);
    const question = await asked(bob, busy);
    const fork = await ok<Info>("session.fork", { sessionId: busy }, bob);
    const copied = await messages(bob, fork.id);
    const copiedParts: Part[] = copied.flatMap((m) => m.parts);
    const tool = copiedParts.find((p): p is PartOf<"tool"> => p.type === "tool" && p.tool === "bash");
    expect(tool?.state).toMatchObject({ status: "error", error: "Tool execution aborted" });
    for (const part of copiedParts) {
      if (part.type === "text" || part.type === "reasoning") expect(part.time?.end, `${part.type} ${part.id}`).toBeDefined();
      if (part.type === "tool") expect(["completed", "error"]).toContain(part.state.status);
    }
    for (const message of copied) if (message.info.role === "assistant") expect(message.info.time.completed).toBeDefined();
    // The original goes on.
    await ok("permission.reply", { requestId: question.id, reply: "reject" }, bob);
    await settled(rt.services, busy);
  });
});
