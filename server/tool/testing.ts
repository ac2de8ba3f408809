import fsCallback, { promises as fs, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { vi } from "vitest";
import type { Todo } from "../session/events";
import type { PermissionRequest, ToolContext } from "./tool";

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
}

export function fakeContext(options: FakeOptions): FakeContext {
  const controller = new AbortController();
  const ctx: FakeContext = {
    sessionId: "ses_test",
    messageId: "msg_test",
    callId: options.callId ?? "call_test",
    agent: "build",
    directory: options.directory,
    dataDir: options.dataDir,
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
