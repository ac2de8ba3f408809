import { spawn, spawnSync } from "node:child_process";
import { promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bash } from "../tool/bash";
import { eventually, fakeContext, hostPids, tempProject, testSandbox, type TempProject } from "../../test/tools";
import { DENIED_SYSCALLS, seccompBytes, seccompFilter, seccompProgram } from "./seccomp";
import { Sandbox } from "./sandbox";
import { DEFAULT_SANDBOX_ID, sandboxSettings } from "./settings";

/**
 * What a sandboxed command can do to the host when the server runs as root (as here and in
 * CI): issue 30 N1 and acceptance point 2, with the real bubblewrap, through the bash tool
 * as the agent runs it after "Allow once".
 */

const asRoot = process.getuid?.() === 0;
/** ptrace, clone and getpid on this machine's architecture. */
const NR = process.arch === "arm64" ? { ptrace: 117, clone: 220, getpid: 172 } : { ptrace: 101, clone: 56, getpid: 39 };

let t: TempProject;
beforeAll(() => {
  expect(testSandbox.state.kind).toBe("bwrap");
  expect(asRoot).toBe(true);
});
beforeEach(async () => {
  t = await tempProject();
});
afterEach(async () => {
  await t.cleanup();
});

async function run(command: string) {
  const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
  const result = await bash.execute({ command }, ctx);
  return { output: result.output, exit: result.metadata.exit };
}

describe("N1: a sandboxed command cannot reach the host's kernel as root (real bubblewrap, server as root)", () => {
  it("N1: no file under /proc/sys is writable, core_pattern and drop_caches refuse writes, /proc/sysrq-trigger too", async () => {
    const before = readFileSync("/proc/sys/kernel/core_pattern", "utf8");
    const { output } = await run(
      [
        // Every writable file under /proc/sys, as the kernel's permission check sees it.
        "find /proc/sys -type f -writable 2>/dev/null | sed 's/^/WRITABLE /'",
        // The same value back (harmless if it went through), and a cache drop.
        "cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern && echo WROTE core_pattern",
        `echo "|$PWD/hook.sh" > /proc/sys/kernel/core_pattern && echo WROTE core_pattern hook`,
        "echo 1 > /proc/sys/vm/drop_caches && echo WROTE drop_caches",
        "test -w /proc/sysrq-trigger && echo WRITABLE sysrq-trigger",
        "echo h > /proc/sysrq-trigger && echo WROTE sysrq-trigger",
        "for d in /proc/irq /proc/bus; do test -d $d && touch $d/x 2>/dev/null && echo WROTE $d; done",
        "echo done",
      ].join("; "),
    );
    const after = readFileSync("/proc/sys/kernel/core_pattern", "utf8");
    // Should the attack ever get through, the host gets its setting back before the test fails.
    if (after !== before) await fs.writeFile("/proc/sys/kernel/core_pattern", before);
    expect(after).toBe(before);
    expect(output).toContain("done");
    expect(output).not.toMatch(/WRITABLE|WROTE/);
    expect(output).toMatch(/core_pattern: Read-only file system/);
  });

  it("N1: the command runs as the sandbox's unprivileged uid, as seen from the host in /proc/<pid>/status", async () => {
    const marker = `43${Math.floor(Math.random() * 1e6)}`;
    const running = run(`id -u; id -g; sleep ${marker}`);
    await eventually(() => hostPids(marker).length === 1);
    const [pid] = hostPids(marker);
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const uid = String(DEFAULT_SANDBOX_ID);
    expect(status).toMatch(new RegExp(`^Uid:\\s+${uid}\\s+${uid}\\s+${uid}\\s+${uid}$`, "m"));
    expect(status).toMatch(new RegExp(`^Gid:\\s+${uid}\\s+${uid}\\s+${uid}\\s+${uid}$`, "m"));
    expect(status).toMatch(/^Groups:\s*$/m);
    expect(status).toMatch(/^CapEff:\s+0+$/m);
    expect(status).toMatch(/^Seccomp:\s+2$/m);
    process.kill(pid ?? 0, "SIGKILL");
    const { output } = await running;
    expect(output.split("\n").slice(0, 2)).toEqual([uid, uid]);
  });

  it("N1: ptrace, clone with a new namespace, unshare -U, mount and x32 calls fail", async () => {
    const { output } = await run(
      [
        `perl -e '$r = syscall(${NR.ptrace}, 16, 1, 0, 0); print "ptrace $r ", $!+0, "\\n"'`,
        // clone(CLONE_NEWUSER | SIGCHLD) as a raw call: a fork when allowed (the child exits at once).
        `perl -e '$r = syscall(${NR.clone}, 0x10000011, 0, 0, 0, 0); exit 0 if $r == 0; print "clone-newuser $r ", $!+0, "\\n"'`,
        ...(process.arch === "x64" ? [`perl -e '$r = syscall(0x40000000 + ${NR.getpid}); print "x32 $r ", $!+0, "\\n"'`] : []),
        "unshare -U true && echo UNSHARED-U",
        "unshare -r true && echo UNSHARED-R",
        "mkdir -p /tmp/m && mount -t tmpfs x /tmp/m && echo MOUNTED",
        "echo done",
      ].join("; "),
    );
    expect(output).toContain("done");
    expect(output).toContain("ptrace -1 1");
    expect(output).toContain("clone-newuser -1 1");
    if (process.arch === "x64") expect(output).toContain("x32 -1 1");
    expect(output).not.toMatch(/UNSHARED|MOUNTED/);
  });

  it("ordinary commands still work under the filter: background jobs, pipes, subshells, git, ripgrep, node", async () => {
    const node = spawnSync("sh", ["-c", "command -v node"], { encoding: "utf8" }).stdout.trim();
    const { output, exit } = await run(
      [
        "bash -c 'sleep 0.1 & wait' && echo bg-ok",
        "echo abc | tr a x | cat",
        "(cd /tmp && echo sub-$(basename $PWD))",
        "git init -q repo && git -C repo -c user.email=a@b -c user.name=a commit -q --allow-empty -m m && git -C repo log --format=%s",
        "echo needle > hay.txt && rg -c needle hay.txt",
        ...(node.startsWith("/usr/") ? ["node -e 'require(\"child_process\").execSync(\"true\"); process.stdout.write(\"node-ok\\n\")'"] : []),
        "ls /proc/self/fd | tr '\\n' ' '; echo",
      ].join(" && "),
    );
    expect(exit).toBe(0);
    expect(output).toContain("bg-ok");
    expect(output).toContain("xbc");
    expect(output).toContain("sub-tmp");
    expect(output).toMatch(/^m$/m);
    expect(output).toMatch(/^1$/m);
    if (node.startsWith("/usr/")) expect(output).toContain("node-ok");
    // Only stdin, stdout, stderr and the one ls opened: the filter's fd is not left open.
    expect(output).toMatch(/^0 1 2 3 $/m);
  });

  it("the workspace belongs to the sandbox's user: files the server made before are adopted on first use, new files are the user's", async () => {
    await fs.writeFile(path.join(t.project, "old.txt"), "old\n");
    await fs.mkdir(path.join(t.project, "sub"));
    await fs.writeFile(path.join(t.project, "sub", "deep.txt"), "deep\n");
    expect(testSandbox.owner).toEqual({ uid: DEFAULT_SANDBOX_ID, gid: DEFAULT_SANDBOX_ID });
    const { output, exit } = await run("echo more >> old.txt && echo more >> sub/deep.txt && echo new > new.txt && cat old.txt sub/deep.txt");
    expect(exit).toBe(0);
    expect(output).toBe("old\nmore\ndeep\nmore");
    for (const name of [".", "old.txt", "sub", "sub/deep.txt", "new.txt"]) {
      const stat = await fs.lstat(path.join(t.project, name));
      expect([stat.uid, stat.gid], name).toEqual([DEFAULT_SANDBOX_ID, DEFAULT_SANDBOX_ID]);
    }
  });
});

describe("the start of a root server's sandbox", () => {
  it("says which user and filter the tools run with", () => {
    expect(testSandbox.describe()).toMatch(/^tool sandbox: bubblewrap \(.*\) as uid 65500\/gid 65500 with a seccomp filter/);
  });

  it("runs as the configured uid/gid", async () => {
    const sandbox = await Sandbox.create({ ...sandboxSettings(undefined, {}), user: { uid: 65510, gid: 65511 } });
    expect(sandbox.owner).toEqual({ uid: 65510, gid: 65511 });
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, sandbox });
    const result = await bash.execute({ command: "id -u; id -g; touch f" }, ctx);
    expect(result.output).toBe("65510\n65511");
    expect((await fs.lstat(path.join(t.project, "f"))).uid).toBe(65510);
  });

  it("is unavailable, with the reason, when its mount points cannot be reached by the sandbox's user", async () => {
    // A folder closed to others (like every mkdtemp folder).
    const closed = path.join(t.outside, "closed");
    await fs.mkdir(closed, { mode: 0o700 });
    const sandbox = await Sandbox.create(sandboxSettings(undefined, {}), process.env, { mountBase: path.join(closed, "points") });
    expect(sandbox.state).toEqual({ kind: "unavailable", reason: expect.stringMatching(/mount points cannot live in .*closed to other users/) });
    expect(sandbox.describe()).toMatch(/^WARNING: no tool sandbox: .*PARLEY_SANDBOX=off/);
  });
});

describe("a server that is not root (started here as an unprivileged uid)", () => {
  it("runs its commands as its own uid, with /proc/sys read-only and ptrace, unshare -U and mount refused", async () => {
    const uid = 65501;
    await fs.chown(t.project, uid, uid);
    // The unprivileged server must reach its project: open the temporary folder's path to it.
    await fs.chmod(path.dirname(t.project), 0o711);
    const child = spawn(
      "setpriv",
      [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--", process.execPath, "--import", "tsx", path.join(import.meta.dirname, "../../test/sandbox-unprivileged-child.ts"), t.project],
      { cwd: path.join(import.meta.dirname, "../.."), stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, HOME: "/tmp", TMPDIR: "/tmp" } },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    const seen = JSON.parse(stdout) as { uid: number; kind: string; owner: unknown; exit: number | null; output: string; describe: string };
    expect(seen).toMatchObject({ uid, kind: "bwrap", owner: null, exit: 0 });
    expect(seen.describe).toContain("as the server's user with a seccomp filter");
    expect(seen.output.split("\n")[0]).toBe(String(uid));
    expect(seen.output).toContain("ptrace -1 1");
    expect(seen.output).toContain("inside");
    expect(seen.output).not.toMatch(/WROTE|UNSHARED|MOUNTED|^\/proc\/sys/m);
    expect((await fs.lstat(path.join(t.project, "made.txt"))).uid).toBe(uid);
  });
});

describe("the seccomp program", () => {
  it("denies at least the calls issue 30 names, and refuses architectures it does not know", () => {
    for (const name of ["ptrace", "mount", "keyctl", "bpf", "perf_event_open", "unshare", "kexec_load", "kexec_file_load", "init_module", "finit_module"]) {
      expect(DENIED_SYSCALLS).toContain(name);
    }
    expect(seccompFilter("ia32")).toEqual({ unsupported: expect.stringMatching(/x86_64 and aarch64 only, not ia32/) });
    const bytes = seccompBytes();
    expect(bytes.length).toBe(seccompProgram().length * 8);
    // First instruction: load seccomp_data.arch (BPF_LD|BPF_W|BPF_ABS, k = 4).
    expect([bytes.readUInt16LE(0), bytes.readUInt32LE(4)]).toEqual([0x20, 4]);
  });
});
