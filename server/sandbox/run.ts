import type { ProcessSpec, Sandbox } from "./sandbox";

/**
 * Run one sandboxed process to its end: output is handed over as it arrives, a timeout
 * or an abort ends the whole tree, and an output budget stops a process that talks too
 * much. Used by every tool that starts a process (bash, grep).
 */

export interface RunOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Between the stop request and the kill (only matters unconfined: a confined tree ends at once). */
  graceMs: number;
  onStdout?(text: string): void;
  onStderr?(text: string): void;
  /** Stop the process once its stdout and stderr together pass this many bytes. */
  maxOutputBytes?: number;
}

export interface RunResult {
  exit: number | null;
  signal: NodeJS.Signals | null;
  ended: "exit" | "timeout" | "abort" | "output-limit";
}

/** How long to wait for the pipes to drain after the process exited (a background job may hold them open). */
const DRAIN_MS = 200;

export async function runProcess(sandbox: Sandbox, spec: ProcessSpec, options: RunOptions): Promise<RunResult> {
  options.signal.throwIfAborted();
  const proc = await sandbox.spawn(spec);
  const { child } = proc;
  let ended: RunResult["ended"] = "exit";
  let bytes = 0;
  const stop = (why: Exclude<RunResult["ended"], "exit">) => {
    if (ended !== "exit") return;
    ended = why;
    proc.terminate(options.graceMs);
  };
  const reader = (decoder: TextDecoder, deliver: ((text: string) => void) | undefined) => (chunk: Buffer) => {
    bytes += chunk.length;
    if (options.maxOutputBytes !== undefined && bytes > options.maxOutputBytes) stop("output-limit");
    deliver?.(decoder.decode(chunk, { stream: true }));
  };
  const outDecoder = new TextDecoder();
  const errDecoder = new TextDecoder();
  child.stdout.on("data", reader(outDecoder, options.onStdout));
  child.stderr.on("data", reader(errDecoder, options.onStderr));

  const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
  const onAbort = () => stop("abort");
  options.signal.addEventListener("abort", onAbort, { once: true });
  if (options.signal.aborted) onAbort();
  let failure: Error | undefined;
  child.once("error", (error) => {
    failure = error;
  });
  try {
    const { code, signal } = await proc.exited;
    if (failure) throw failure;
    // Let the pipes deliver what is left.
    await new Promise<void>((resolve) => {
      if (child.stdout.readableEnded && child.stderr.readableEnded) return resolve();
      const drain = setTimeout(resolve, DRAIN_MS);
      let open = 2;
      const closed = () => {
        if (--open === 0) {
          clearTimeout(drain);
          resolve();
        }
      };
      child.stdout.once("close", closed);
      child.stderr.once("close", closed);
    });
    const tailOut = outDecoder.decode();
    const tailErr = errDecoder.decode();
    if (tailOut) options.onStdout?.(tailOut);
    if (tailErr) options.onStderr?.(tailErr);
    return { exit: code, signal, ended };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
    child.stdout.destroy();
    child.stderr.destroy();
  }
}
