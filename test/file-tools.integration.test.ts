import { execFileSync } from "node:child_process";
import { chownSync, constants, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Request as PermissionRequest } from "../server/permission/events";
import type { ProcessSpec } from "../server/sandbox/sandbox";
import type { Part, ToolPart } from "../server/session/message";
import { Runners } from "../server/session/runner";
import { outputDirectory } from "../server/tool/truncate";
import { type Runtime, type TestApp, openApp, projectAppEnv, trpcAnswer, trpcData, type Auth } from "./app";
import { type Browser, authCall, joinTeam, signUp } from "./auth";
import { settled } from "./session-harness";

/**
 * The file tools as an attacker meets them (issue 30: N2, N3, N5, D2), through the real
 * tRPC Route Handler with real sign-in cookies, the built-in offline model (it turns
 * "read <path>", "list <path>", "grep X in <path>" into tool calls), the real tools and the
 * real sandbox. The attacker is a plain member who answers their own questions with
 * "once", as anyone can.
 */

type Health = typeof import("../app/api/health/route");

const OTHER_TEAM_SECRET = "TEAM-B-SECRET-OUTPUT";
const PG_PASSWORD = "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5";

describe("file tools stay in bounds (integration, through HTTP)", () => {
  let app: TestApp;
  let rt: Runtime;
  let auth: Auth;
  let health: Health;
  let ann: Browser;
  let bob: Browser;
  let carol: Browser;
  let projectId: string;
  let dataDir: string;
  let shared: string;

  const call = <T>(procedure: string, input: unknown, who: Browser) => trpcAnswer<T>(app, procedure, input, who.headers);
  const ok = <T>(procedure: string, input: unknown, who: Browser) => trpcData<T>(app, procedure, input, who.headers);
  const newSession = async (who: Browser, permission?: unknown) => (await ok<{ id: string }>("session.create", { projectId, title: "files", ...(permission ? { permission } : {}) }, who)).id;
  const setPolicy = (rules: unknown[]) => ok("permission.setPolicy", { rules }, ann);

  /**
   * Send `text` and run the turn to its end, answering every question it asks with "once"
   * (the member approves their own request, as an attacker would).
   */
  async function attack(who: Browser, sessionId: string, text: string): Promise<void> {
    await ok("session.prompt", { sessionId, parts: [{ type: "text", text }] }, who);
    const end = Date.now() + 20_000;
    for (;;) {
      const pending = await ok<PermissionRequest[]>("permission.pending", { sessionId }, who);
      for (const request of pending) await ok("permission.reply", { requestId: request.id, reply: "once" }, who);
      if (pending.length === 0 && !(await Runners.busy(rt.services.lock, rt.services.runners, sessionId))) break;
      if (Date.now() > end) throw new Error(`the turn of ${sessionId} did not end`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await settled(rt.services, sessionId);
  }

  async function toolParts(who: Browser, sessionId: string): Promise<ToolPart[]> {
    const page = await ok<{ messages: { parts: Part[] }[] }>("message.page", { sessionId }, who);
    return page.messages.flatMap((m) => m.parts).filter((p): p is ToolPart => p.type === "tool");
  }

  /** What a tool call ended with: its output, or its error. */
  const outcome = (part: ToolPart | undefined) =>
    part?.state.status === "completed" ? { status: "completed", text: part.state.output } : part?.state.status === "error" ? { status: "error", text: part.state.error } : { status: part?.state.status ?? "missing", text: "" };

  const questions = (sessionId: string) => rt.services.db.permissionRequest.count({ where: { sessionId } });

  beforeAll(async () => {
    app = await openApp("filetools", (dir) =>
      projectAppEnv(dir, {
        PARLEY_SIGNUP: "open",
        PARLEY_OFFLINE_TPS: "0",
      }),
    );
    rt = app.rt;
    dataDir = path.join(app.dir, "data");
    shared = path.join(app.dir, "shared");
    mkdirSync(shared);
    writeFileSync(path.join(shared, "notes.txt"), "SHARED-NOTE\n");
    // A folder the operator shares with the sandbox's user (the tools write outside with that user's rights).
    const owner = app.rt.services.sandbox.owner;
    if (owner) chownSync(shared, owner.uid, owner.gid);
    health = await import("../app/api/health/route");
    auth = await (await import("../server/auth/instance")).getAuth();
    ann = await signUp(auth, "ann@files.test", "Ann");
    const teamId = (await ok<{ id: string }>("team.current", undefined, ann)).id;
    const [first] = await ok<{ id: string }[]>("project.list", undefined, ann);
    projectId = first!.id;
    bob = await joinTeam(auth, ann, teamId, "bob@files.test", { name: "Bob" });
    // Another team, with a saved tool output of its own and the database's password file in the data directory.
    carol = await signUp(auth, "carol@files.test", "Carol");
    const carolTeam = (await ok<{ id: string }>("team.current", undefined, carol)).id;
    expect(carolTeam).not.toBe(teamId);
    const saved = outputDirectory(rt.services.settings.dataDir, carolTeam, "ses_0000000000000000000000000");
    mkdirSync(saved, { recursive: true });
    writeFileSync(path.join(saved, "call_1.txt"), `${OTHER_TEAM_SECRET}\n`);
    writeFileSync(path.join(dataDir, "pg-password"), `${PG_PASSWORD}\n`);
  });

  afterAll(async () => {
    await app?.close();
    // Only the attack of the N2 test could have made it (on a server without the fix).
    rmSync("/etc/parley-owned", { force: true });
  });

  it("N2: a member's read /etc/shadow, write /etc/parley-owned, list /root and read /proc/self/status are refused, nothing asked or reached", async () => {
    const session = await newSession(bob);
    for (const text of ["read /etc/shadow", "write /etc/parley-owned: owned", "list /root", "read /proc/self/status"]) await attack(bob, session, text);
    const calls = await toolParts(bob, session);
    expect(calls.map((p) => p.tool)).toEqual(["read", "write", "list", "read"]);
    const [shadow, written, root, status] = calls.map(outcome);
    expect(shadow).toEqual({ status: "error", text: expect.stringMatching(/^Access denied: \/etc\/shadow is outside this project\. .*policy allows "external_directory"/) });
    expect(written).toEqual({ status: "error", text: expect.stringMatching(/^Access denied: \/etc\/parley-owned is outside this project/) });
    expect(root).toEqual({ status: "error", text: expect.stringMatching(/^Access denied: \/root is outside this project/) });
    expect(status).toEqual({ status: "error", text: expect.stringMatching(/^Access denied: \/proc\/self\/status is outside this project, in a place no tool may reach \(a part of the server itself/) });
    expect(existsSync("/etc/parley-owned")).toBe(false);
    expect(await questions(session)).toBe(0);
  });

  it("N2: a member cannot open outside folders with session rules (allow refused, ask changes nothing); an owner's session rules cannot either", async () => {
    const allow = await call("session.create", { projectId, title: "x", permission: [{ permission: "external_directory", pattern: "*", action: "allow" }] }, bob);
    expect(allow.status).toBe(403);
    const asking = await newSession(bob, [{ permission: "external_directory", pattern: "*", action: "ask" }]);
    await attack(bob, asking, "read /etc/hostname");
    const owners = await newSession(ann, [{ permission: "*", pattern: "*", action: "allow" }]);
    await attack(ann, owners, "read /etc/hostname");
    for (const [who, session] of [[bob, asking], [ann, owners]] as const) {
      const [part] = await toolParts(who, session);
      expect(outcome(part)).toEqual({ status: "error", text: expect.stringMatching(/^Access denied: \/etc\/hostname is outside this project/) });
      expect(await questions(session)).toBe(0);
    }
  });

  it("N3: folders around the data directory are refused outright, even where the team's policy opens every outside folder", async () => {
    await setPolicy([{ permission: "external_directory", pattern: "*", action: "allow" }]);
    try {
      const session = await newSession(bob);
      const probes = [
        `grep ${OTHER_TEAM_SECRET} in ${app.dir}`,
        `grep ^[A-Za-z0-9_+/=-]{40,48}$ in ${app.dir}`,
        `list ${app.dir}`,
        `glob **/* in ${app.dir}`,
        `glob *.txt in ${path.dirname(app.dir)}`,
        "list /",
        `grep ${OTHER_TEAM_SECRET} in ${dataDir}`,
      ];
      for (const text of probes) await attack(bob, session, text);
      const calls = (await toolParts(bob, session)).map(outcome);
      expect(calls).toHaveLength(probes.length);
      for (const call of calls) {
        expect(call).toEqual({ status: "error", text: expect.stringMatching(/^Access denied: .* is outside this project, in a place no tool may reach \(/) });
        expect(call.text).not.toContain(PG_PASSWORD);
        expect(call.text).not.toContain(`${OTHER_TEAM_SECRET}\n`);
        expect(call.text).not.toContain("pg-password");
      }
      expect(calls[0]?.text).toMatch(/\(a folder that holds Parley's data or another team's project\)/);
      expect(calls[5]?.text).toMatch(/\(a folder that holds a part of the server itself/);
      expect(calls[6]?.text).toMatch(/\(Parley's data or another team's project\)/);
      expect(await questions(session)).toBe(0);
    } finally {
      await setPolicy([]);
    }
  });

  it("N2: an owner's policy opens one outside folder: a member's read, list and write there run in the sandbox; other folders stay closed", async () => {
    await setPolicy([{ permission: "external_directory", pattern: shared, action: "allow" }]);
    const spawn = vi.spyOn(rt.services.sandbox, "spawn");
    const specs: ProcessSpec[] = [];
    try {
      const session = await newSession(bob);
      for (const text of [`read ${shared}/notes.txt`, `list ${shared}`, `write ${shared}/made.txt: made in the sandbox`, `read ${app.dir}/elsewhere.txt`]) await attack(bob, session, text);
      specs.push(...spawn.mock.calls.map(([spec]) => spec));
      const [read, list, write, elsewhere] = (await toolParts(bob, session)).map(outcome);
      expect(read).toEqual({ status: "completed", text: expect.stringContaining("00001| SHARED-NOTE") });
      expect(list).toEqual({ status: "completed", text: expect.stringContaining("notes.txt") });
      expect(write?.status).toBe("completed");
      expect(readFileSync(path.join(shared, "made.txt"), "utf8")).toBe("made in the sandbox\n");
      expect(elsewhere).toEqual({ status: "error", text: expect.stringMatching(/^Access denied: .*elsewhere.txt is outside this project/) });
      expect(await questions(session)).toBe(0);
    } finally {
      spawn.mockRestore();
      await setPolicy([]);
    }
    // Each outside operation was one sandboxed process that saw only its file or folder.
    const binds = specs.map((spec) => ({ readable: spec.readable ?? [], writable: spec.writable ?? [] }));
    expect(binds).toContainEqual({ readable: [path.join(shared, "notes.txt")], writable: [] });
    expect(binds).toContainEqual({ readable: [shared], writable: [] });
    expect(binds).toContainEqual({ readable: [expect.stringMatching(/parley-write-/)], writable: [shared] });
  });

  it("N5: four FIFO mentions do not stall sign-in or /api/health, and the prompt is refused with a clear message", async () => {
    const names = ["a", "b", "c", "d"].map((name) => `${name}.fifo`);
    const fifos: string[] = [];
    /** A session whose workspace holds the FIFOs: the attacker makes them with one approved command; here the test does. */
    const withFifos = async () => {
      const session = await newSession(bob);
      const { workspaceId } = await rt.services.db.session.findUniqueOrThrow({ where: { id: session } });
      if (!workspaceId) throw new Error("a new session has a workspace");
      const { directory } = await rt.services.workspaces.ready(workspaceId);
      for (const name of names) {
        const fifo = path.join(directory, name);
        execFileSync("mkfifo", [fifo]);
        fifos.push(fifo);
      }
      return session;
    };
    const timed = async <T>(what: () => Promise<T>): Promise<{ ms: number; value: T }> => {
      const start = performance.now();
      const value = await what();
      return { ms: performance.now() - start, value };
    };
    try {
      // A stalled server answers no attempt (before the fix: sign-in hung for 30 s); one
      // slowed by another test file's CPU on this shared machine answers a later one in time.
      const slowest: number[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const session = await withFifos();
        const sent = call("session.prompt", { sessionId: session, parts: names.map((name) => ({ type: "mention", path: name })) }, bob);
        // While it is in flight: another team signs in, and the load balancer checks health.
        await new Promise((resolve) => setTimeout(resolve, 100));
        const [signIn, check] = await Promise.all([
          timed(() => authCall(auth, "/sign-in/email", { email: "carol@files.test", password: "correct horse battery" })),
          timed(async () => (await health.GET()).status),
        ]);
        expect(signIn.value.status).toBe(200);
        expect(check.value).toBe(200);
        const answer = await sent;
        expect(answer.status).toBe(400);
        expect(answer.message).toMatch(/^@a\.fifo is a named pipe \(FIFO\): only regular files can be read or written\.$/);
        expect(await rt.services.db.message.count({ where: { sessionId: session } })).toBe(0);
        slowest.push(Math.max(signIn.ms, check.ms));
        if (slowest.at(-1)! < 500) break;
      }
      expect(Math.min(...slowest), `sign-in and /api/health (ms) in each attempt: ${slowest.map(Math.round).join(", ")}`).toBeLessThan(500);
    } finally {
      // Before the fix, the reads hang in the thread pool until a writer comes: let them go.
      for (const fifo of fifos) {
        try {
          closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch (error) {
          // ENXIO: nobody is reading it (the fix refused it without opening it for long).
          if (!(error instanceof Error && "code" in error && error.code === "ENXIO")) throw error;
        }
        rmSync(fifo, { force: true });
      }
    }
  });

  it("D2: a subagent reads the saved output its parent's hint hands it, without a question", async () => {
    const session = await newSession(ann, [{ permission: "bash", pattern: "*", action: "allow" }]);
    await attack(ann, session, "run `seq 1 3000`");
    const [bash] = await toolParts(ann, session);
    expect(bash?.state.status).toBe("completed");
    const saved = bash?.state.status === "completed" ? String(bash.state.metadata.outputPath) : "";
    expect(saved).toContain(path.join("tool-output", ""));
    expect(bash?.state.status === "completed" ? bash.state.output : "").toContain("Use the task tool to have a subagent");
    await attack(ann, session, `use a subagent to read ${saved}`);
    const task = (await toolParts(ann, session)).find((p) => p.tool === "task");
    expect(task?.state.status).toBe("completed");
    const childId = task?.state.status === "completed" ? String(task.state.metadata.sessionId) : "";
    const [childRead] = await toolParts(ann, childId);
    expect(childRead?.tool).toBe("read");
    expect(outcome(childRead)).toEqual({ status: "completed", text: expect.stringMatching(/^<file>\n00001\| 1\n[\s\S]*3000 lines in total/) });
    expect(await questions(childId)).toBe(0);
  });
});
