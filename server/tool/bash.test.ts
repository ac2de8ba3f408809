import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Sandbox, commandEnvironment } from "../sandbox/sandbox";
import { sandboxSettings } from "../sandbox/settings";
import { bash, createBashTool } from "./bash";
import { eventually, fakeContext, hostPids, isRunning, tempProject, testSandbox, type FakeContext, type TempProject } from "../../test/tools";

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

const unconfined = await Sandbox.create(sandboxSettings(undefined, { mode: "off" }));
let sandbox: Sandbox = testSandbox;
const ctxFor = () => fakeContext({ directory: t.project, dataDir: t.dataDir, sandbox });

/** Whether the command printed `started` yet, read from the live updates. */
function hasStarted(ctx: FakeContext): boolean {
  const latest = ctx.updates[ctx.updates.length - 1]?.metadata?.output;
  return typeof latest === "string" && latest.includes("started");
}

/**
 * A command that starts two long sleeps (one of them in a session of its own, out of the
 * shell's process group), prints "started" and waits; `marker` finds their host pids
 * (inside the sandbox the pids printed by the shell are those of its own namespace).
 */
function tree(): { command: string; marker: string } {
  const marker = `30${Math.floor(Math.random() * 1e6)}`;
  // Unconfined, only the process group can be ended: a process that left it (setsid) would survive.
  const second = sandbox.state.kind === "bwrap" ? `setsid sleep ${marker}` : `sleep ${marker}`;
  return { command: `sleep ${marker} & ${second} & echo started; wait`, marker };
}

describe.each([
  ["in the sandbox", () => testSandbox],
  ["with the sandbox off", () => unconfined],
])("bash %s", (_name, which) => {
  beforeEach(() => {
    sandbox = which();
  });

  it("asks bash permission for each simple command with its always pattern, and runs in the project directory", async () => {
    const ctx = ctxFor();
    const result = await bash.execute({ command: "git --version >/dev/null; pwd", description: "Print the directory" }, ctx);
    expect(result.output).toBe(t.project);
    expect(result.title).toBe("Print the directory");
    expect(result.metadata).toMatchObject({ exit: 0, timedOut: false, aborted: false });
    expect(ctx.requests).toEqual([
      expect.objectContaining({ permission: "bash", patterns: ["git --version", "pwd"], always: ["git *", "pwd *"] }),
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
    const { command, marker } = tree();
    const running = bash.execute({ command, timeout: 1500 }, ctx);
    await eventually(() => hasStarted(ctx) && hostPids(marker).length === 2);
    const pids = hostPids(marker);
    started.push(...pids);
    const result = await running;
    expect(result.output).toBe("started\n\n(Command timed out after 1500 ms and was terminated, with every process it started.)");
    expect(result.metadata).toMatchObject({ timedOut: true, aborted: false });
    await eventually(() => pids.every((pid) => !isRunning(pid)));
  });

  it("kills the whole process tree on abort", async () => {
    const ctx = ctxFor();
    const { command, marker } = tree();
    const running = bash.execute({ command }, ctx);
    await eventually(() => hasStarted(ctx) && hostPids(marker).length === 2);
    const pids = hostPids(marker);
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
    const { command, marker } = tree();
    const running = tool.execute({ command: `trap '' TERM; ${command}` }, ctx);
    await eventually(() => hasStarted(ctx) && hostPids(marker).length === 2);
    const pids = hostPids(marker);
    started.push(...pids);
    ctx.controller.abort();
    await running;
    await eventually(() => pids.every((pid) => !isRunning(pid)), 3000);
  });

  it("returns when the shell exits, ending a background job that keeps the output pipe open", async () => {
    const marker = `20${Math.floor(Math.random() * 1e6)}`;
    const begin = Date.now();
    const result = await bash.execute({ command: `sleep ${marker} & echo done` }, ctxFor());
    expect(result.output).toBe("done");
    expect(Date.now() - begin).toBeLessThan(3000);
    await eventually(() => hostPids(marker).length === 0);
  });
});

describe("bash without a sandbox", () => {
  it("is refused with a message naming bubblewrap when it is not installed (PATH without bwrap)", async () => {
    const missing = await Sandbox.create(sandboxSettings(undefined, {}), { PATH: "/nonexistent" });
    expect(missing.available).toBe(false);
    expect(missing.describe()).toMatch(/^WARNING: no tool sandbox: .*install the `bubblewrap` package/);
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, sandbox: missing });
    await expect(bash.execute({ command: "touch ran.txt" }, ctx)).rejects.toThrow(/bubblewrap.*PARLEY_SANDBOX=off/s);
    expect(ctx.requests).toEqual([]);
    await expect(fs.access(path.join(t.project, "ran.txt"))).rejects.toThrow();
  });

  it("runs unconfined only when the operator turned the sandbox off, with a warning", async () => {
    expect(unconfined.describe()).toMatch(/^WARNING: the tool sandbox is OFF \(PARLEY_SANDBOX=off\)/);
    const result = await bash.execute({ command: "echo hi > ran.txt && cat ran.txt" }, fakeContext({ directory: t.project, dataDir: t.dataDir, sandbox: unconfined }));
    expect(result.output).toBe("hi");
  });
});

describe("bash environment", () => {
  it("hides the server's secrets from unconfined commands", () => {
    const env = commandEnvironment({ PATH: "/bin", DATABASE_URL: "postgres://x", OPENAI_API_KEY: "sk", PARLEY_DATA_DIR: "/d", GITHUB_TOKEN: "t", HOME: "/root" });
    expect(env).toEqual({ PATH: "/bin", HOME: "/root" });
  });
});
