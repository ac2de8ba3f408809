import { mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { clusterDirectory } from "../../server/db/cluster";
import type { AssistantMessage, Message } from "../../server/session/message";
import { expect, test } from "./fixtures";
import { Api, signUp } from "./support/api";
import { Instance, ROOT } from "./support/cluster";

/**
 * The launcher as a supervisor (scripts/parley.ts): one instance on its own embedded
 * PostgreSQL (no DATABASE_URL: the launcher starts the database itself). When its app
 * process dies outright (kill -9, as the kernel's OOM killer does), the launcher starts it
 * again and leaves the database up under it; a SIGTERM to the launcher still stops both.
 * Runs once, with the embedded-postgres project (the database here is the launcher's own).
 */

const PORT = Number(process.env.PARLEY_INSTANCES_PORT ?? 3310) + 20;
const DIR = path.resolve(ROOT, process.env.PARLEY_INSTANCES_DATA_DIR ?? ".data-instances", "supervisor");
const RESTART_BOUND_MS = 30_000;

/** The pids of the processes whose parent is `parent`, with their command lines. */
function children(parent: number): { pid: number; cmd: string }[] {
  const out: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The parent pid is the second field after the command's closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) out.push({ pid: Number(entry), cmd: readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ") });
    } catch {
      // The process ended while the list was read.
    }
  }
  return out;
}

/** The launcher's app process (node … next start, which names itself "next-server"), if one runs. */
function appPid(launcher: number): number | undefined {
  return children(launcher).find((child) => /next-server|next\/dist\/bin\/next/.test(child.cmd))?.pid;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The embedded PostgreSQL's postmaster, from its pid file. */
function postmaster(dataDir: string): number {
  return Number(readFileSync(path.join(clusterDirectory(dataDir), "postmaster.pid"), "utf8").split("\n")[0]);
}

/** A prompt answered by the offline model: the reply, once complete. */
async function answered(api: Api, projectId: string, title: string): Promise<AssistantMessage> {
  const sessionId = await api.session(projectId, title);
  expect((await api.prompt(sessionId, "hello")).status).toBe(200);
  let reply: AssistantMessage | undefined;
  await expect
    .poll(
      async () => {
        const page = await api.data<{ messages: { info: Message }[] }>("message.page", { sessionId }, "GET");
        const info = page.messages.map((m) => m.info).find((m): m is AssistantMessage => m.role === "assistant");
        reply = info?.time.completed ? info : undefined;
        return reply !== undefined;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  return reply!;
}

test("supervisor: after kill -9 of the app, the launcher starts it again within 30 s on the same PostgreSQL; SIGTERM still stops both", async ({ database }) => {
  test.skip(database !== "embedded", "the launcher's own embedded PostgreSQL: once, with the embedded-postgres project");
  test.setTimeout(180_000);
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(path.join(DIR, "project"), { recursive: true });
  const dataDir = path.join(DIR, "data");
  const instance = new Instance({
    name: "a",
    port: PORT,
    env: {
      PARLEY_DATA_DIR: dataDir,
      PARLEY_PROJECT_DIR: path.join(DIR, "project"),
      PARLEY_SIGNUP: "open",
      PARLEY_AUTH_RATE_LIMIT: "false",
      PARLEY_OFFLINE_TPS: "0",
      PARLEY_SHUTDOWN_GRACE_MS: "1000",
    },
    logFile: path.join(DIR, "launcher.log"),
  });
  // The launcher must start its own database: no DATABASE_URL from this process's environment.
  const inherited = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  try {
    await instance.start();
  } finally {
    if (inherited !== undefined) process.env.DATABASE_URL = inherited;
  }
  try {
    const api = new Api(instance.url, await signUp(instance.url));
    const projectId = await api.projectId();
    expect((await answered(api, projectId, "Before the kill")).error).toBeUndefined();
    const pg = postmaster(dataDir);
    expect(alive(pg)).toBe(true);
    const first = appPid(instance.pid);
    expect(first).toBeDefined();

    const killedAt = Date.now();
    process.kill(first!, "SIGKILL");
    // The launcher stays, starts a new app, and the new app answers a prompt, all within 30 s.
    await expect.poll(() => appPid(instance.pid) ?? first, { timeout: RESTART_BOUND_MS }).not.toBe(first);
    await expect.poll(async () => (await instance.health().catch(() => ({ status: 0 }))).status, { timeout: RESTART_BOUND_MS }).toBe(200);
    expect((await answered(api, projectId, "After the kill")).error).toBeUndefined();
    expect(Date.now() - killedAt).toBeLessThan(RESTART_BOUND_MS);
    expect(instance.running).toBe(true);
    // PostgreSQL untouched: the same postmaster, still running.
    expect(postmaster(dataDir)).toBe(pg);
    expect(alive(pg)).toBe(true);
    expect(instance.log(200)).toMatch(/the app was killed \(SIGKILL\): starting it again in 1 s/);

    // A SIGTERM to the launcher still stops everything: the app drains and exits, then the database stops.
    instance.terminate();
    expect(await instance.exited()).toMatchObject({ code: 0, signal: null });
    await expect.poll(() => alive(pg)).toBe(false);
  } finally {
    await instance.kill9();
  }
});
