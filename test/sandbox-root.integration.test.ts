import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Request as PermissionRequest } from "../server/permission/events";
import type { Part } from "../server/session/message";
import { DEFAULT_SANDBOX_ID } from "../server/sandbox/settings";
import { memberCalls, projectAppEnv, until } from "./app";
import { appSuite } from "./suite";
import type { Browser } from "./auth";
import { annInvitesBob } from "./two-teams";
import { settled } from "./session-harness";

/**
 * Issue 30 N1 as the attacker ran it: a plain member of a team on a server running as
 * root prompts the agent (the built-in offline model) to run one command, answers the
 * permission question "once" through tRPC, and the command — in the real bubblewrap
 * sandbox — tries to make the kernel run a script of the project as host root through
 * /proc/sys/kernel/core_pattern.
 */

const CORE_PATTERN = "/proc/sys/kernel/core_pattern";

describe("the sandbox of a root server, through tRPC (integration)", () => {
  let project: string;
  let dataDir: string;
  beforeAll(() => {
    expect(process.getuid?.()).toBe(0);
  });
  const app = appSuite("sandbox-root", (dir) => {
    const env = projectAppEnv(dir, { PARLEY_SIGNUP: "invite", PARLEY_OFFLINE_TPS: "0" });
    project = path.join(dir, "projects", "app");
    dataDir = path.join(dir, "data");
    writeFileSync(path.join(project, "README.md"), "a project\n");
    return env;
  });
  let bob: Browser;
  let projectId: string;
  const { ok } = memberCalls(() => app);

  beforeAll(async () => {
    expect(app.rt.services.sandbox.state.kind).toBe("bwrap");
    ({ bob, projectId } = await annInvitesBob(app, "sandbox-root", { name: "Bob" }));
  });

  it("N1: a member's approved command cannot set core_pattern and have the kernel run a project script as host root", async () => {
    const before = readFileSync(CORE_PATTERN, "utf8");
    const proof = path.join(app.dir, "n1-proof");
    const { id, directory } = await ok<{ id: string; directory: string }>("session.create", { projectId, title: "n1" }, bob);
    const command = [
      `printf '#!/bin/sh\\nid > ${proof}\\n' > hook.sh`,
      "chmod +x hook.sh",
      `echo "|$PWD/hook.sh" > ${CORE_PATTERN}`,
      "sh -c 'kill -SEGV $$'",
      "id -u",
    ].join("; ");
    await ok("session.prompt", { sessionId: id, parts: [{ type: "text", text: `run \`${command}\`` }] }, bob);
    const asked = await until("the permission question", async () => (await ok<PermissionRequest[]>("permission.pending", { sessionId: id }, bob))[0]);
    expect(asked.permission).toBe("bash");
    await ok("permission.reply", { requestId: asked.id, reply: "once" }, bob);
    await settled(app.rt.services, id, 30_000);
    const after = readFileSync(CORE_PATTERN, "utf8");
    // Should the attack ever get through, the host gets its setting back before the test fails.
    if (after !== before) writeFileSync(CORE_PATTERN, before);

    expect(after).toBe(before);
    expect(existsSync(proof)).toBe(false);
    const page = await ok<{ messages: { parts: Part[] }[] }>("message.page", { sessionId: id }, bob);
    const calls = page.messages.flatMap((m) => m.parts).flatMap((p) => (p.type === "tool" && p.tool === "bash" ? [p.state] : []));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ status: "completed", output: expect.stringMatching(/Read-only file system/) });
    // The command ran as the sandbox's user, who now owns the hook it wrote (and the session's workspace).
    expect(calls[0]).toMatchObject({ output: expect.stringMatching(new RegExp(`^${DEFAULT_SANDBOX_ID}$`, "m")) });
    expect(statSync(path.join(directory, "hook.sh")).uid).toBe(DEFAULT_SANDBOX_ID);
    expect(statSync(path.join(directory, "README.md")).uid).toBe(DEFAULT_SANDBOX_ID);
    expect(readFileSync(path.join(directory, "README.md"), "utf8")).toBe("a project\n");
    // The project's own folder is never handed to the sandbox: sessions work in their workspaces.
    expect(statSync(path.join(project, "README.md")).uid).toBe(0);
    expect(existsSync(path.join(project, "hook.sh"))).toBe(false);
  });

  /** Run a prompt's one bash command, answered "once", and return the call's state. */
  async function runOnce(sessionId: string, command: string) {
    await ok("session.prompt", { sessionId, parts: [{ type: "text", text: `run \`${command}\`` }] }, bob);
    const asked = await until("the permission question", async () => (await ok<PermissionRequest[]>("permission.pending", { sessionId }, bob))[0]);
    await ok("permission.reply", { requestId: asked.id, reply: "once" }, bob);
    await settled(app.rt.services, sessionId, 30_000);
    const page = await ok<{ messages: { parts: Part[] }[] }>("message.page", { sessionId }, bob);
    return page.messages.flatMap((m) => m.parts).flatMap((p) => (p.type === "tool" && p.tool === "bash" ? [p.state] : [])).at(-1);
  }

  it("a session's commands read its saved outputs; the sandbox's user, on the host, reaches nothing of the data directory", async () => {
    const { id } = await ok<{ id: string }>("session.create", { projectId, title: "outputs" }, bob);
    const long = await runOnce(id, "seq 1 3000");
    const saved = /Full output saved to: (\S+)/.exec(long?.status === "completed" ? long.output : "")?.[1];
    if (!saved) throw new Error(`no saved output in ${JSON.stringify(long)}`);
    const back = await runOnce(id, `tail -n 1 ${saved}`);
    expect(back).toMatchObject({ status: "completed", output: "3000" });

    // As if the folder around the data directory were open to everyone (e.g. /srv/parley):
    // the data directory itself and what is inside still shut the sandbox's user out.
    chmodSync(app.dir, 0o755);
    expect(statSync(dataDir).mode & 0o077).toBe(0o011);
    const secrets = [`ls ${dataDir}`, `cat ${saved}`, `ls ${path.dirname(saved)}`, `ls ${path.join(dataDir, "tool-output")}`];
    for (const entry of readdirSync(dataDir)) secrets.push(`ls -d ${path.join(dataDir, entry)}/*`, `cat ${path.join(dataDir, entry)}`);
    for (const command of secrets) {
      const probe = spawnSync("setpriv", [`--reuid=${DEFAULT_SANDBOX_ID}`, `--regid=${DEFAULT_SANDBOX_ID}`, "--clear-groups", "--", "sh", "-c", command], { encoding: "utf8" });
      expect(probe.status, `${command}: ${probe.stdout}`).not.toBe(0);
    }
  });
});
