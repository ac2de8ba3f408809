import { existsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Approval } from "../server/permission/approvals";
import type { Request as PermissionRequest } from "../server/permission/events";
import type { Part } from "../server/session/message";
import { type Runtime, memberCalls, projectAppEnv, until } from "./app";
import { appSuite } from "./suite";
import type { Browser } from "./auth";
import { annInvitesBob } from "./two-teams";
import { settled } from "./session-harness";

/**
 * The permission policy as members meet it, through the real tRPC Route Handler with real
 * sign-in cookies, the built-in offline model, the real tools and the real sandbox: what a
 * member can and cannot loosen, and shell-parsed approvals.
 */

const ALLOW_ALL = [{ permission: "*", pattern: "*", action: "allow" as const }];

describe("team policy and approvals through tRPC (integration)", () => {
  let project: string;
  const app = appSuite("policy", (dir) => {
    project = path.join(dir, "projects", "app");
    const config = path.join(dir, "parley.config.json");
    // The server configuration denies `chmod` whatever anyone else says.
    writeFileSync(config, JSON.stringify({ permission: { bash: { "chmod *": "deny" } } }));
    return projectAppEnv(dir, {
      PARLEY_SIGNUP: "invite",
      PARLEY_CONFIG: config,
      PARLEY_OFFLINE_TPS: "0",
    });
  });
  let rt: Runtime;
  let ann: Browser;
  let bob: Browser;
  let projectId: string;

  const { call, ok } = memberCalls(() => app);

  const newSession = (who: Browser, permission?: unknown) => call<{ id: string }>("session.create", { projectId, title: "policy", ...(permission ? { permission } : {}) }, who);
  const prompt = (who: Browser, sessionId: string, text: string) => ok("session.prompt", { sessionId, parts: [{ type: "text", text }] }, who);
  const pendingOf = (who: Browser, sessionId: string) => ok<PermissionRequest[]>("permission.pending", { sessionId }, who);
  const asked = (who: Browser, sessionId: string) => until("a permission question", async () => (await pendingOf(who, sessionId))[0]);

  /** The session's bash calls once the run is over (its runner gone). */
  async function bashCalls(who: Browser, sessionId: string) {
    await rt.services.runners.idle(sessionId);
    const page = await ok<{ messages: { parts: Part[] }[] }>("message.page", { sessionId }, who);
    return page.messages.flatMap((m) => m.parts).flatMap((p) => (p.type === "tool" && p.tool === "bash" ? [p.state] : []));
  }

  beforeAll(async () => {
    rt = app.rt;
    ({ ann, bob, projectId } = await annInvitesBob(app, "policy", { name: "Bob" }));
  });

  it("a member cannot give a session allow rules; ask and deny rules are fine", async () => {
    const refused = await newSession(bob, ALLOW_ALL);
    expect(refused.status).toBe(403);
    expect(refused.message).toMatch(/owners and admins can add "allow" rules/);
    const careful = await newSession(bob, [{ permission: "bash", pattern: "*", action: "ask" }, { permission: "edit", pattern: "*.md", action: "deny" }]);
    expect(careful.status).toBe(200);
    const update = await call("session.update", { sessionId: careful.data.id, patch: { permission: ALLOW_ALL } }, bob);
    expect(update.status).toBe(403);
    expect((await call("permission.setPolicy", { rules: ALLOW_ALL }, bob)).status).toBe(403);
  });

  it("a team deny and a server-config deny are final: an admin's allow-everything session rules cannot undo them", async () => {
    await ok("permission.setPolicy", { rules: [{ permission: "bash", pattern: "curl *", action: "deny" }] }, ann);
    expect(await ok("permission.policy", {}, bob)).toEqual({ rules: [{ permission: "bash", pattern: "curl *", action: "deny" }] });
    writeFileSync(path.join(project, "keep.txt"), "keep\n");
    const session = await newSession(ann, ALLOW_ALL);
    expect(session.status).toBe(200);
    const id = session.data.id;
    // Even the session's own allow-all, set later with an update, changes nothing.
    await ok("session.update", { sessionId: id, patch: { permission: ALLOW_ALL } }, ann);
    for (const command of ["curl http://example.test", "chmod 000 keep.txt", "echo allowed here"]) {
      await prompt(ann, id, `run \`${command}\``);
      await settled(rt.services, id);
    }
    const calls = await bashCalls(ann, id);
    expect(calls.map((s) => s.status)).toEqual(["error", "error", "completed"]);
    expect(calls[0]).toMatchObject({ error: expect.stringMatching(/"curl http:\/\/example.test" is denied by the rule .*"curl \*".*\(team policy\)/) });
    expect(calls[1]).toMatchObject({ error: expect.stringMatching(/"chmod 000 keep.txt" is denied by the rule .*"chmod \*".*\(server configuration\)/) });
    expect(calls[2]).toMatchObject({ output: "allowed here" });
    expect(statSync(path.join(project, "keep.txt")).mode & 0o777).not.toBe(0);
    expect(await rt.services.db.permissionRequest.count({ where: { sessionId: id } })).toBe(0);
  });

  it('"Always allow" for `git status -s` does not cover `git status && rm x`: it asks, and on reject rm never runs', async () => {
    writeFileSync(path.join(project, "x.txt"), "x\n");
    const { data } = await newSession(bob);
    await prompt(bob, data.id, "run `git status -s`");
    const first = await asked(bob, data.id);
    expect(first).toMatchObject({ permission: "bash", patterns: ["git status -s"], always: ["git status *"] });
    await ok("permission.reply", { requestId: first.id, reply: "always" }, bob);
    await settled(rt.services, data.id);

    await prompt(bob, data.id, "run `git status && rm x.txt`");
    const second = await asked(bob, data.id);
    expect(second.patterns).toEqual(["git status", "rm x.txt"]);
    await ok("permission.reply", { requestId: second.id, reply: "reject" }, bob);
    const calls = await bashCalls(bob, data.id);
    expect(calls.at(-1)?.status).toBe("error");
    expect(existsSync(path.join(project, "x.txt"))).toBe(true);

    // The approval is the team's, with who granted it.
    const approvals = await ok<Approval[]>("permission.approvals", { projectId }, ann);
    expect(approvals).toEqual([expect.objectContaining({ permission: "bash", pattern: "git status *", grantedBy: { id: bob.userId, name: "Bob" } })]);
  });

  it('after "Always allow" for `echo harmless`, `echo ok; id` still asks (for id); an admin revokes the approval and echo asks again', async () => {
    const { data } = await newSession(bob);
    await prompt(bob, data.id, "run `echo harmless`");
    await ok("permission.reply", { requestId: (await asked(bob, data.id)).id, reply: "always" }, bob);
    await rt.services.runners.idle(data.id);

    await prompt(bob, data.id, "run `echo ok; id`");
    const chained = await asked(bob, data.id);
    expect(chained.patterns).toEqual(["echo ok", "id"]);
    await ok("permission.reply", { requestId: chained.id, reply: "reject" }, bob);
    await rt.services.runners.idle(data.id);

    const echo = (await ok<Approval[]>("permission.approvals", {}, ann)).find((a) => a.pattern === "echo *");
    expect(echo).toBeDefined();
    expect((await call("permission.revoke", { approvalId: echo!.id }, bob)).status).toBe(403);
    await ok("permission.revoke", { approvalId: echo!.id }, ann);
    await prompt(bob, data.id, "run `echo harmless`");
    const again = await asked(bob, data.id);
    expect(again.patterns).toEqual(["echo harmless"]);
    await ok("permission.reply", { requestId: again.id, reply: "reject" }, bob);
    await rt.services.runners.idle(data.id);
  });

  it("a command the parser cannot read asks every time and offers no 'always'", async () => {
    await ok("permission.setPolicy", { rules: [{ permission: "bash", pattern: "echo *", action: "allow" }] }, ann);
    const { data } = await newSession(bob);
    await prompt(bob, data.id, "run `$CMD echo`");
    const request = await asked(bob, data.id);
    expect(request).toMatchObject({ patterns: ["$CMD echo"], always: [], mustAsk: true });
    expect((await call("permission.reply", { requestId: request.id, reply: "always" }, bob)).status).toBe(400);
    await ok("permission.reply", { requestId: request.id, reply: "reject" }, bob);
    await rt.services.runners.idle(data.id);
    await ok("permission.setPolicy", { rules: [] }, ann);
  });
});
