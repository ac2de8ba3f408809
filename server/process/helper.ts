import { type ChildProcess, spawn } from "node:child_process";
import { programSource } from "./helper-child";

/**
 * Short-lived server-side programs (git for snapshots) started by a small helper process
 * instead of the server itself. Starting a program from the server forks the server: a
 * process of several hundred MB whose page tables the kernel copies on every start (3–7
 * ms of the event loop, measured with strace and CPU profiles), and whose memory is
 * copy-on-write until the program has started. The helper is a bare Node.js process of a
 * few tens of MB: it forks cheaply and the server's event loop never blocks on a fork.
 *
 * The helper runs as the server's user with the server's rights, exactly as a direct
 * spawn would; it takes requests only over its IPC channel from the server that started
 * it. It exits when that channel closes (the server exited, even by kill -9), killing the
 * programs it still runs. When it dies, the requests in flight fail (their callers see an
 * error as if the program had failed) and the next request starts a new helper.
 */

export interface ProgramRequest {
  /** The program's absolute path. */
  file: string;
  args: string[];
  cwd: string;
  /** The program's whole environment (nothing is inherited). */
  env: Record<string, string>;
  /** Written to its standard input, which is then closed. */
  input?: string | Buffer;
}

export interface ProgramResult {
  /** The exit code, or null when a signal ended it. */
  code: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
}

export class ProgramError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProgramError";
  }
}

/** Runs a program to its end and collects its output. */
export interface ProgramRunner {
  run(request: ProgramRequest): Promise<ProgramResult>;
}

/** The helper's program (helper-child.ts), made once. */
const HELPER_SOURCE = programSource();

interface Waiting {
  resolve: (result: ProgramResult) => void;
  reject: (error: Error) => void;
}

type Answer = { id: number; error: string } | ({ id: number } & ProgramResult);

function isAnswer(value: unknown): value is Answer {
  if (typeof value !== "object" || value === null || !("id" in value) || typeof value.id !== "number") return false;
  if ("error" in value) return typeof value.error === "string";
  return "stdout" in value && Buffer.isBuffer(value.stdout) && "stderr" in value && Buffer.isBuffer(value.stderr) && "code" in value && "signal" in value;
}

/** One helper process and the requests it has not answered yet. */
interface Helper {
  process: ChildProcess;
  waiting: Map<number, Waiting>;
}

export class ProgramHelper implements ProgramRunner {
  private current: Helper | undefined;
  private next = 1;
  /** Helpers started so far (tests see a restart). */
  started = 0;

  run(request: ProgramRequest): Promise<ProgramResult> {
    let helper: Helper;
    try {
      helper = this.helper();
    } catch (error) {
      return Promise.reject(new ProgramError(`the process helper could not start: ${error instanceof Error ? error.message : String(error)}`));
    }
    const id = this.next++;
    return new Promise<ProgramResult>((resolve, reject) => {
      helper.waiting.set(id, { resolve, reject });
      // While an answer is awaited the channel keeps this process alive; idle, it does not.
      helper.process.channel?.ref();
      helper.process.send({ id, ...request }, (error) => {
        if (!error) return;
        settle(helper, id)?.reject(new ProgramError(`the process helper did not take the request: ${error.message}`));
      });
    });
  }

  /** The running helper's process id (tests kill it). */
  get pid(): number | undefined {
    return this.current?.process.pid;
  }

  private helper(): Helper {
    if (this.current?.process.connected) return this.current;
    // Only what Node needs: no NODE_OPTIONS (the server's inspector port, profiler or heap
    // flags are not the helper's), and each program gets its own environment anyway.
    const env: NodeJS.ProcessEnv = { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH ?? "/usr/bin:/bin" };
    const child = spawn(process.execPath, ["-e", HELPER_SOURCE], { stdio: ["ignore", "ignore", "inherit", "ipc"], serialization: "advanced", env });
    this.started++;
    // Each helper answers only the requests sent to it: when one dies after a new one was
    // started (its channel closed before its exit was reported), its own requests fail.
    const helper: Helper = { process: child, waiting: new Map() };
    this.current = helper;
    child.on("message", (message: unknown) => {
      if (!isAnswer(message)) return;
      const waiting = settle(helper, message.id);
      if (!waiting) return;
      if ("error" in message) waiting.reject(new ProgramError(message.error));
      else waiting.resolve({ code: message.code, signal: message.signal, stdout: message.stdout, stderr: message.stderr });
    });
    const gone = (reason: string) => {
      if (this.current === helper) this.current = undefined;
      const waiting = [...helper.waiting.values()];
      helper.waiting.clear();
      for (const w of waiting) w.reject(new ProgramError(`the process helper ${reason}`));
    };
    child.once("error", (error) => gone(`failed: ${error.message}`));
    child.once("exit", (code, signal) => gone(`exited (${signal ?? `code ${code}`})`));
    child.unref();
    child.channel?.unref();
    return helper;
  }
}

function settle(helper: Helper, id: number): Waiting | undefined {
  const waiting = helper.waiting.get(id);
  helper.waiting.delete(id);
  if (helper.waiting.size === 0) helper.process.channel?.unref();
  return waiting;
}

/** The helper of this process, started on first use. */
let shared: ProgramHelper | undefined;
export function programHelper(): ProgramHelper {
  shared ??= new ProgramHelper();
  return shared;
}
