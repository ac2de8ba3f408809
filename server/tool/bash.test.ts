import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bash, commandPrefix, createBashTool } from "./bash";
import { errorCode } from "./files";
import { fakeContext, tempProject, type FakeContext, type TempProject } from "./testing";

let t: TempProject;
const started: number[] = [];
beforeEach(async () => {
  t = await tempProject();
});
afterEach(async () => {
  // Safety net: end any process a failed test left behind (only pids these tests printed).
  for (const pid of started.splice(0)) {
    if (isRunning(pid)) process.kill(pid, "SIGKILL");
  }
  await t.cleanup();
});

const ctxFor = () => fakeContext({ directory: t.project, dataDir: t.dataDir });

/** Whether a process is still running (a zombie waiting to be reaped counts as gone). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
    throw error;
  }
  try {
    return !execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).trim().startsWith("Z");
  } catch (error) {
    // ps exits 1 when the process vanished between the two checks.
    if (error instanceof Error && "status" in error && error.status === 1) return false;
    throw error;
  }
}

async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Pids the command printed so far, read from the live updates. */
function printedPids(ctx: FakeContext): number[] {
  const latest = ctx.updates[ctx.updates.length - 1]?.metadata?.output;
  return typeof latest === "string" ? [...latest.matchAll(/pid:(\d+)/g)].map((m) => Number(m[1])) : [];
}

const TREE = "sleep 30 & echo pid:$!; sleep 30 & echo pid:$!; wait";

describe("commandPrefix", () => {
  it("keeps the command and a subcommand for the always pattern", () => {
    expect(commandPrefix("ls -la src")).toBe("ls");
    expect(commandPrefix("git status --short")).toBe("git status");
    expect(commandPrefix("git -C x log")).toBe("git");
    expect(commandPrefix("npm run build -- --watch")).toBe("npm run build");
    expect(commandPrefix("FOO=1 BAR=2 npx vitest run")).toBe("npx vitest");
    expect(commandPrefix("  echo hi ")).toBe("echo");
  });
});

describe("bash", () => {
  it("asks bash permission with the command and an always pattern, and runs in the project directory", async () => {
    const ctx = ctxFor();
    const result = await bash.execute({ command: "git --version >/dev/null; pwd", description: "Print the directory" }, ctx);
    expect(result.output).toBe(t.project);
    expect(result.title).toBe("Print the directory");
    expect(result.metadata).toMatchObject({ exit: 0, timedOut: false, aborted: false });
    expect(ctx.requests).toEqual([
      expect.objectContaining({ permission: "bash", patterns: ["git --version >/dev/null; pwd"], always: ["git *"] }),
    ]);
  });

  it("combines stdout and stderr and reports a failing exit code", async () => {
    const result = await bash.execute({ command: "echo out; echo err >&2; exit 3" }, ctxFor());
    expect(result.output).toBe("out\nerr\n\n(Exit code 3)");
    expect(result.metadata).toMatchObject({ exit: 3, output: "out\nerr\n" });
    expect((await bash.execute({ command: "true" }, ctxFor())).output).toBe("(no output)");
  });

  it("does not run when permission is refused or the call was already aborted", async () => {
    const refusing = fakeContext({ directory: t.project, dataDir: t.dataDir, reject: ["bash"] });
    await expect(bash.execute({ command: "touch ran.txt" }, refusing)).rejects.toThrow("rejected: bash");
    const ctx = ctxFor();
    await expect(bash.execute({ command: "touch ran.txt" }, { ...ctx, abort: AbortSignal.abort() })).rejects.toThrow(/abort/i);
    await expect(fs.access(path.join(t.project, "ran.txt"))).rejects.toThrow();
  });

  it("streams output live through ctx.update while the command runs", async () => {
    const ctx = ctxFor();
    const running = bash.execute({ command: "echo first; sleep 0.6; echo second", description: "two steps" }, ctx);
    await eventually(() => ctx.updates.some((u) => u.metadata?.output === "first\n"));
    expect(ctx.updates.every((u) => u.metadata?.description === "two steps")).toBe(true);
    const result = await running;
    expect(result.output).toBe("first\nsecond");
  });

  it("kills the whole process tree on timeout and says so", async () => {
    const ctx = ctxFor();
    const begin = Date.now();
    const result = await bash.execute({ command: `echo start; ${TREE}`, timeout: 700 }, ctx);
    const pids = [...result.output.matchAll(/pid:(\d+)/g)].map((m) => Number(m[1]));
    started.push(...pids);
    expect(Date.now() - begin).toBeLessThan(5000);
    expect(result.output).toMatch(/^start\npid:\d+\npid:\d+\n\n\(Command timed out after 700 ms and was terminated, with every process it started\.\)$/);
    expect(result.metadata).toMatchObject({ timedOut: true, aborted: false });
    expect(pids).toHaveLength(2);
    await eventually(() => pids.every((pid) => !isRunning(pid)));
  });

  it("kills the whole process tree on abort", async () => {
    const ctx = ctxFor();
    const running = bash.execute({ command: TREE }, ctx);
    await eventually(() => printedPids(ctx).length === 2);
    const pids = printedPids(ctx);
    started.push(...pids);
    expect(pids.every(isRunning)).toBe(true);
    ctx.controller.abort();
    const result = await running;
    expect(result.output).toContain("(Command was aborted and terminated, with every process it started.)");
    expect(result.metadata).toMatchObject({ aborted: true });
    await eventually(() => pids.every((pid) => !isRunning(pid)));
  });

  it("falls back to SIGKILL for processes that ignore SIGTERM", async () => {
    const tool = createBashTool({ graceMs: 300 });
    const ctx = ctxFor();
    const running = tool.execute({ command: `trap '' TERM; ${TREE}` }, ctx);
    await eventually(() => printedPids(ctx).length === 2);
    const pids = printedPids(ctx);
    started.push(...pids);
    ctx.controller.abort();
    await running;
    await eventually(() => pids.every((pid) => !isRunning(pid)), 3000);
  });

  it("returns when the shell exits even if a background job keeps the output pipe open", async () => {
    const begin = Date.now();
    const result = await bash.execute({ command: "sleep 20 & echo pid:$!; echo done" }, ctxFor());
    const pid = Number(/pid:(\d+)/.exec(result.output)?.[1]);
    started.push(pid);
    expect(result.output).toMatch(/done$/);
    expect(Date.now() - begin).toBeLessThan(3000);
  });
});

describe("bash environment", () => {
  it("hides the server's secrets from commands", async () => {
    const { commandEnvironment } = await import("./bash");
    const env = commandEnvironment({ PATH: "/bin", DATABASE_URL: "postgres://x", OPENAI_API_KEY: "sk", PARLEY_DATA_DIR: "/d", GITHUB_TOKEN: "t", HOME: "/root" });
    expect(env).toEqual({ PATH: "/bin", HOME: "/root" });
  });
});
