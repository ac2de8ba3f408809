import type { ChildProcess, spawn as Spawn } from "node:child_process";

/**
 * The process helper's own program (helper.ts): it runs in the helper process, not in the
 * server. It is a real module so that it is type-checked and linted; the server starts it
 * as the source text of `helperMain` (`programSource`), called with what it needs, so that
 * it depends on nothing else at run time (no file to find next to a bundled server, no
 * module of the server's bundle). Keep it self-contained: it may use its parameters and
 * JavaScript's built-ins only, never an import or a variable of this module.
 */

/** A request as the server sends it (helper.ts ProgramRequest, with its id). */
export interface HelperRequest {
  id: number;
  file: string;
  args: string[];
  cwd: string;
  /** The program's whole environment. */
  env: NodeJS.ProcessEnv;
  input?: string | Buffer;
}

/** What the helper needs of its process: its IPC channel and exit. */
export interface HelperProcess {
  on(event: "message", listener: (request: HelperRequest) => void): unknown;
  on(event: "disconnect", listener: () => void): unknown;
  send?(message: unknown): boolean;
  exit(code: number): never;
}

/** One spawn per request; its output sent back in one message (the channel's "advanced" serialization carries Buffers as they are). */
export function helperMain(spawn: typeof Spawn, proc: HelperProcess): void {
  const running = new Set<ChildProcess>();
  proc.on("message", (request) => {
    let answered = false;
    const answer = (message: Record<string, unknown>) => {
      if (answered) return;
      answered = true;
      proc.send?.({ id: request.id, ...message });
    };
    let child: ChildProcess;
    try {
      child = spawn(request.file, request.args, { cwd: request.cwd, env: request.env, stdio: ["pipe", "pipe", "pipe"] });
    } catch (error) {
      answer({ error: error instanceof Error ? error.message : String(error) });
      return;
    }
    running.add(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", (error) => {
      running.delete(child);
      answer({ error: error.message });
    });
    child.once("close", (code, signal) => {
      running.delete(child);
      answer({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(request.input === undefined ? "" : request.input);
  });
  proc.on("disconnect", () => {
    for (const child of running) child.kill("SIGKILL");
    proc.exit(0);
  });
}

/**
 * The helper's whole program, for `node -e`: `helperMain`'s source, called with Node's
 * `spawn` and the process. (`__name` is defined for a transpiler that keeps function names
 * by wrapping them in calls to it, as esbuild does for tsx.)
 */
export function programSource(): string {
  return `"use strict";\nvar __name = (target) => target;\n(${helperMain.toString()})(require("node:child_process").spawn, process);\n`;
}
