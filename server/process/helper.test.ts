import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ProgramError, ProgramHelper } from "./helper";

const helper = new ProgramHelper();
const ENV = { PATH: "/usr/bin:/bin" };
const sh = (script: string, options: { input?: string; env?: Record<string, string>; cwd?: string } = {}) =>
  helper.run({ file: "/bin/sh", args: ["-c", script], cwd: options.cwd ?? "/tmp", env: options.env ?? ENV, ...(options.input !== undefined ? { input: options.input } : {}) });

const alive = (pid: number) => {
  try {
    // A zombie (exited, not yet waited for) counts as gone.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};
const childrenOf = (pid: number) =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
const until = async (check: () => boolean, ms: number, what: string) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

afterAll(() => {
  if (helper.pid) process.kill(helper.pid, "SIGKILL");
});

describe("ProgramHelper", () => {
  it("runs a program in the helper process, not in this one, with exactly the environment, directory and input given", async () => {
    process.env.PARLEY_HELPER_TEST_SECRET = "not for programs";
    try {
      const result = await sh('echo "$PPID"; pwd; echo "${PARLEY_HELPER_TEST_SECRET:-unset} $ONLY"; cat', { input: "from stdin", env: { ...ENV, ONLY: "given" }, cwd: "/usr" });
      const [ppid, cwd, env, input] = result.stdout.toString().split("\n");
      expect(Number(ppid)).toBe(helper.pid);
      expect(Number(ppid)).not.toBe(process.pid);
      expect(cwd).toBe("/usr");
      expect(env).toBe("unset given");
      expect(input).toBe("from stdin");
      expect(result).toMatchObject({ code: 0, signal: null });
    } finally {
      delete process.env.PARLEY_HELPER_TEST_SECRET;
    }
  });

  it("reports the exit code, the signal and standard error of a program that fails", async () => {
    const failed = await sh("echo oops >&2; exit 3");
    expect(failed.code).toBe(3);
    expect(failed.stderr.toString()).toBe("oops\n");
    const killed = await sh("kill -TERM $$");
    expect(killed).toMatchObject({ code: null, signal: "SIGTERM" });
  });

  it("rejects with ProgramError when the program cannot start", async () => {
    await expect(helper.run({ file: "/nonexistent/program", args: [], cwd: "/", env: ENV })).rejects.toThrow(ProgramError);
    await expect(helper.run({ file: "/bin/sh", args: ["-c", "true"], cwd: "/nonexistent-dir", env: ENV })).rejects.toThrow(ProgramError);
  });

  it("answers concurrent requests each with its own output, and carries large and binary output whole", async () => {
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => sh(`printf '%s' ${i}`)));
    expect(results.map((r) => r.stdout.toString())).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));
    const big = await sh("head -c 6000000 /dev/zero | tr '\\0' 'x'; printf '\\0\\377'");
    expect(big.stdout.length).toBe(6_000_002);
    expect(big.stdout.subarray(-2)).toEqual(Buffer.from([0, 255]));
  });

  it("when the helper dies, the requests in flight fail and the next request starts a new helper", async () => {
    const started = helper.started;
    const pending = sh("sleep 30");
    await until(() => helper.pid !== undefined && childrenOf(helper.pid).length > 0, 5000, "the program started");
    const pid = helper.pid ?? 0;
    process.kill(pid, "SIGKILL");
    await expect(pending).rejects.toThrow(/process helper exited/);
    const again = await sh("echo again");
    expect(again.stdout.toString()).toBe("again\n");
    expect(helper.started).toBe(started + 1);
    expect(helper.pid).not.toBe(pid);
  });

  it("does not keep its process alive when idle", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "../../test/program-helper-child.ts"), "idle"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise((resolve) => child.once("close", resolve));
    expect(code).toBe(0);
    expect(out).toBe("ran\n");
  });

  it("exits, and stops the programs it runs, when the process that started it is killed (SIGKILL)", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "../../test/program-helper-child.ts"), "hold"], { stdio: ["ignore", "pipe", "inherit"] });
    const line = await new Promise<string>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString())));
    const helperPid = (JSON.parse(line) as { helper: number }).helper;
    await until(() => childrenOf(helperPid).length > 0, 10_000, "the helper started sleep");
    const [sleeping] = childrenOf(helperPid);
    child.kill("SIGKILL");
    await until(() => !alive(helperPid), 10_000, "the helper exited");
    await until(() => sleeping === undefined || !alive(sleeping), 10_000, "its program was stopped");
  });
});
