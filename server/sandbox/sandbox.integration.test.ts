import { promises as fs } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { databaseUrl } from "../../test/db";
import { bash } from "../tool/bash";
import { eventually, fakeContext, hostPids, isRunning, tempProject, testSandbox, type TempProject } from "../../test/tools";

/**
 * The real sandbox (bubblewrap on this machine), as the bash tool uses it after the user
 * allowed a command once: what a member's command can and cannot reach on a shared server.
 */

let t: TempProject;
let otherTeam: string;
let app: net.Server;
let appPort: number;
const dbPort = Number(new URL(databaseUrl()).port);

beforeAll(async () => {
  expect(testSandbox.state.kind).toBe("bwrap");
  // A stand-in for the app's own port: something listening on the host's loopback.
  // The probe below closes its connection without reading the greeting, so the kernel may
  // answer with a reset: that is expected, and an unhandled 'error' would crash the worker.
  app = net.createServer((socket) => {
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNRESET" && error.code !== "EPIPE") throw error;
    });
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
  appPort = (app.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => app.close(resolve));
});

beforeEach(async () => {
  t = await tempProject();
  await fs.mkdir(path.join(t.dataDir, "pg"), { recursive: true });
  await fs.writeFile(path.join(t.dataDir, "pg", "postmaster.pid"), `12345\n${t.dataDir}/pg\n\n${dbPort}\n`);
  await fs.writeFile(path.join(t.dataDir, "pg-password"), "not-for-tools\n", { mode: 0o600 });
  otherTeam = path.join(t.outside, "other-team-project");
  await fs.mkdir(otherTeam);
  await fs.writeFile(path.join(otherTeam, "secret.txt"), "OTHER TEAM SECRET\n");
});
afterEach(async () => {
  await t.cleanup();
});

/** Run a command as the agent would after "Allow once". */
async function run(command: string, timeout?: number) {
  const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, forbidden: [otherTeam] });
  const result = await bash.execute({ command, ...(timeout ? { timeout } : {}) }, ctx);
  return { output: result.output, exit: result.metadata.exit, ctx };
}

describe("the sandbox of a command (real bubblewrap)", () => {
  it("cannot list the data directory or read the database's files and password", async () => {
    for (const command of [`ls ${t.dataDir}`, `cat ${t.dataDir}/pg/postmaster.pid`, `cat ${t.dataDir}/pg-password`]) {
      const { output, exit } = await run(command);
      expect(exit, command).not.toBe(0);
      expect(output).not.toMatch(/12345|not-for-tools/);
    }
  });

  it("cannot connect to the database's port or socket, nor to the app's own port", async () => {
    // Outside the sandbox both ports answer.
    for (const port of [dbPort, appPort]) {
      await new Promise<void>((resolve, reject) => net.connect(port, "127.0.0.1").once("connect", function (this: net.Socket) { this.destroy(); resolve(); }).once("error", reject));
      const { output, exit } = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`);
      expect(exit).not.toBe(0);
      expect(output).not.toContain("connected");
    }
    const sockets = await run("ls -a /tmp /var/run/postgresql /run/postgresql 2>&1; true");
    expect(sockets.output).not.toMatch(/\.s\.PGSQL/);
  });

  it("cannot read another team's project nor write outside the project; writes inside it", async () => {
    const read = await run(`cat ${otherTeam}/secret.txt`);
    expect(read.exit).not.toBe(0);
    expect(read.output).not.toContain("OTHER TEAM SECRET");
    const outsideFile = path.join(t.outside, "pwned.txt");
    const write = await run(`echo pwned > ${outsideFile}`);
    expect(write.exit).not.toBe(0);
    await expect(fs.access(outsideFile)).rejects.toThrow();
    for (const target of ["/etc/pwned", "/usr/pwned", "/pwned"]) expect((await run(`touch ${target}`)).exit).not.toBe(0);
    const inside = await run("echo hello > inside.txt && cat inside.txt");
    expect(inside.output).toBe("hello");
    expect(await fs.readFile(path.join(t.project, "inside.txt"), "utf8")).toBe("hello\n");
  });

  it("runs with a private /tmp, no capabilities, no secrets in its environment and no home directory", async () => {
    // A name no other file on the host has: the command's /tmp is its own.
    const privateTmpFile = `/tmp/parley-sandbox-private-${process.pid}-${Date.now()}`;
    process.env.PARLEY_TEST_SECRET = "s3cret";
    try {
      const { output } = await run(`env; grep CapEff /proc/self/status; ls /root /home 2>&1; touch ${privateTmpFile} && echo tmp-ok`);
      expect(output).not.toMatch(/s3cret|DATABASE_URL|PARLEY_/);
      expect(output).toMatch(/CapEff:\s+0000000000000000/);
      expect(output).toMatch(/ls: cannot access '\/root'/);
      expect(output).toContain("tmp-ok");
    } finally {
      delete process.env.PARLEY_TEST_SECRET;
    }
    await expect(fs.access(privateTmpFile)).rejects.toThrow();
  });

  it("leaves no process behind after a timeout, checked by host pid", async () => {
    const marker = `41${Math.floor(Math.random() * 1e6)}`;
    const running = run(`sleep ${marker} & setsid sleep ${marker} & (trap '' TERM; sleep ${marker}) & echo started; wait`, 1500);
    await eventually(() => hostPids(marker).length === 3);
    const pids = hostPids(marker);
    const { output } = await running;
    expect(output).toContain("timed out");
    await eventually(() => pids.every((pid) => !isRunning(pid)));
  });

  it("leaves no process behind after an abort, checked by host pid", async () => {
    const marker = `42${Math.floor(Math.random() * 1e6)}`;
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const running = bash.execute({ command: `sleep ${marker} & setsid sleep ${marker} & echo started; wait` }, ctx);
    await eventually(() => hostPids(marker).length === 2);
    const pids = hostPids(marker);
    ctx.controller.abort();
    expect((await running).output).toContain("aborted");
    await eventually(() => pids.every((pid) => !isRunning(pid)));
  });
});
