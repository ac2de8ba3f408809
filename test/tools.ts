import { execFileSync } from "node:child_process";
import fsCallback, { promises as fs, readFileSync, readdirSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, vi } from "vitest";
import { DEFAULTS, evaluate } from "../server/permission/evaluate";
import { Sandbox } from "../server/sandbox/sandbox";
import { sandboxSettings } from "../server/sandbox/settings";
import type { Todo } from "../server/session/todo-item";
import type { PermissionRequest, ToolContext, Verdict } from "../server/tool/tool";
import { errorCode } from "../server/tool/files";
import { outputDirectory } from "../server/tool/truncate";

/** The real sandbox of this machine (bubblewrap), as the server would use it. */
export const testSandbox: Sandbox = await Sandbox.create(sandboxSettings(undefined, {}));

/** Test helpers for the tool tests: a temporary project and a fake ToolContext. */

export interface TempProject {
  /** The project directory (ctx.directory). */
  project: string;
  /** A sibling directory outside the project, holding `secret.txt`. */
  outside: string;
  secret: string;
  dataDir: string;
  cleanup(): Promise<void>;
}

export const SECRET = "TOP SECRET CONTENT";

export async function tempProject(): Promise<TempProject> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "parley-tool-")));
  const project = path.join(base, "project");
  const outside = path.join(base, "outside");
  const dataDir = path.join(base, "data");
  await fs.mkdir(project);
  await fs.mkdir(outside);
  await fs.mkdir(dataDir);
  const secret = path.join(outside, "secret.txt");
  await fs.writeFile(secret, `${SECRET}\n`);
  return { project, outside, secret, dataDir, cleanup: () => fs.rm(base, { recursive: true, force: true }) };
}

export interface FakeContext extends ToolContext {
  requests: PermissionRequest[];
  updates: { title?: string; metadata?: Record<string, unknown> }[];
  stored: Todo[];
  controller: AbortController;
}

export interface FakeOptions {
  directory: string;
  dataDir: string;
  /** Reject external_directory requests (default true), like today's caller. */
  rejectExternal?: boolean;
  /** Permissions to reject besides external_directory. */
  reject?: string[];
  canUseTask?: boolean;
  callId?: string;
  /** The session the tool runs for (its saved outputs live in its own folder). */
  sessionId?: string;
  sandbox?: Sandbox;
  /** Paths no tool may reach besides the data directory. */
  forbidden?: string[];
  /** What `ctx.check` answers (default: the built-in default rules). */
  check?: (permission: string, pattern: string) => Verdict;
  /**
   * What the policy (server config, team, project) says about folders outside the project:
   * default "ask", as on a server whose configuration opens them to a question; "default"
   * leaves the built-in rules alone (which deny them).
   */
  external?: Verdict | "default";
  /** Saved outputs of the sessions this one runs for (a subagent's parent). */
  savedOutputs?: string[];
}

export function fakeContext(options: FakeOptions): FakeContext {
  const controller = new AbortController();
  const ctx: FakeContext = {
    sessionId: options.sessionId ?? "ses_test",
    messageId: "msg_test",
    callId: options.callId ?? "call_test",
    agent: "build",
    directory: options.directory,
    outputDir: outputDirectory(options.dataDir, "team_test", options.sessionId ?? "ses_test"),
    boundary: {
      forbidden: [options.dataDir, ...(options.forbidden ?? [])],
      teamProjects: [],
      savedOutputs: options.savedOutputs ?? [],
      policy: [
        { name: "defaults", rules: DEFAULTS, final: false },
        {
          name: "config",
          rules: options.external === "default" ? [] : [{ permission: "external_directory", pattern: "*", action: options.external ?? "ask" }],
          final: true,
        },
      ],
    },
    sandbox: options.sandbox ?? testSandbox,
    check: options.check ?? ((permission, pattern) => evaluate(permission, pattern, DEFAULTS).action),
    abort: controller.signal,
    controller,
    requests: [],
    updates: [],
    stored: [],
    async ask(request) {
      ctx.requests.push(request);
      if (request.permission === "external_directory" && options.rejectExternal !== false) {
        throw new Error(`rejected: ${request.patterns.join(", ")} is outside the project`);
      }
      if (options.reject?.includes(request.permission)) throw new Error(`rejected: ${request.permission}`);
    },
    update(patch) {
      ctx.updates.push(patch);
    },
    canUse: (tool) => tool === "task" && options.canUseTask === true,
    todos: {
      read: async () => ctx.stored,
      write: async (todos) => {
        ctx.stored = todos;
      },
    },
    task: async () => {
      throw new Error("no subagents in this test");
    },
  };
  return ctx;
}

function isUnder(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

function resolveIfPossible(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    // Missing or dangling: compare the path as given.
    return path.resolve(p);
  }
}

/**
 * Record every content access (open, read, write, stat, readdir) whose path really lies in
 * `dir`. Resolving a path (realpath, lstat, readlink) is not content access and is allowed.
 */
export function watchAccess(dir: string): { touched: string[]; restore(): void } {
  const touched: string[] = [];
  const note = (p: unknown) => {
    if (typeof p !== "string") return;
    if (isUnder(dir, resolveIfPossible(p))) touched.push(p);
  };
  const spies = [
    vi.spyOn(fs, "open"),
    vi.spyOn(fs, "readFile"),
    vi.spyOn(fs, "writeFile"),
    vi.spyOn(fs, "stat"),
    vi.spyOn(fs, "readdir"),
    vi.spyOn(fs, "mkdir"),
    vi.spyOn(fsCallback, "open"),
  ];
  // The spies call through; the first argument of every call is checked on restore.
  const recorders = spies.map((spy) => () => spy.mock.calls.forEach((call) => note(call[0])));
  return {
    touched,
    restore() {
      for (const record of recorders) record();
      for (const spy of spies) spy.mockRestore();
    },
  };
}

/**
 * Host pids of the processes whose command line contains `marker` (a sandboxed process
 * sees pids of its own namespace; the host's /proc tells where it really runs).
 */
export function hostPids(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
    } catch {
      // The process ended while we looked.
      continue;
    }
    const args = cmdline.split("\0");
    // The process itself runs `marker`, e.g. `sleep 3012345` (not bwrap or a shell whose script mentions it).
    if (args[0] !== undefined && !args[0].endsWith("bwrap") && !args[0].endsWith("sh") && args.includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

/** Whether a process is still running (a zombie waiting to be reaped counts as gone). */
export function isRunning(pid: number): boolean {
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

/** Wait until `check` holds (polling), or fail after `ms`. */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A fresh temporary project for every test of the calling file (made before each test,
 * removed after it). The returned object always shows the current test's project.
 */
export function eachTempProject(): TempProject {
  let current: TempProject | undefined;
  beforeEach(async () => {
    current = await tempProject();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  return new Proxy({} as TempProject, {
    get(_target, key: keyof TempProject) {
      if (!current) throw new Error("no temporary project outside a test");
      return current[key];
    },
  });
}
