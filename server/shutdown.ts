import { describeDbError } from "./bus/postgres";
import { config } from "./config";
import { restartStreams } from "./http";
import { type Runtime, booted } from "./runtime";
import * as Background from "./session/background";
import { SHUTDOWN_REASON } from "./session/runner";
import { logger } from "./log";

const shutdownLog = logger("shutdown");

/**
 * Graceful shutdown of one instance (SIGTERM, as a container platform or a rolling
 * deploy sends it; SIGINT too):
 * 1. new work is refused (a prompt, compaction or rerun gets 503 with Retry-After, the
 *    health check says "draining"), so the load balancer sends it elsewhere;
 * 2. running turns go on, for at most the grace period (PARLEY_SHUTDOWN_GRACE_MS);
 * 3. turns still running then are stopped — their reply closed with a message saying the
 *    server restarted, their tools aborted, their run locks released — and a message they
 *    leave unanswered is handed over to another instance (server/session/loop.ts);
 * 4. what was published reaches the other instances, every live stream ends (browsers
 *    reconnect, through the load balancer, to another instance), connections close.
 * The launcher (scripts/parley.ts) forwards the signal and waits for the exit.
 */

/** How long stopped turns may take to close their replies and release their locks (ms). */
const ABORT_WAIT_MS = 5_000;
/** How long the last steps (background work, events still to send) may take (ms). */
const FINISH_WAIT_MS = 3_000;

type Log = (line: string) => void;

/** Resolves with `work`'s outcome, or false after `ms`. */
async function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Drain and close a booted runtime; true when everything ended in time. */
export async function drain(rt: Runtime, graceMs: number, log: Log): Promise<boolean> {
  const { runners, lock, db } = rt.services;
  runners.stopAccepting();
  rt.stopTimers();
  let clean = true;
  if (runners.size) {
    log(`${runners.size} turn(s) running: letting them finish for up to ${graceMs} ms; new prompts are refused`);
    if (!(await runners.allIdle(graceMs))) {
      log(`${runners.size} turn(s) still running after ${graceMs} ms: stopping them, handing what they leave over to another instance`);
      runners.abortAll(SHUTDOWN_REASON);
      if (!(await runners.allIdle(ABORT_WAIT_MS))) {
        clean = false;
        log(`${runners.size} turn(s) did not stop within ${ABORT_WAIT_MS} ms: their sessions are recovered by another instance`);
      }
    }
  }
  if (!(await within(FINISH_WAIT_MS, Background.settled()))) log("background work (titles, prune) did not finish: left undone");
  if (!(await within(FINISH_WAIT_MS, rt.bridge.flush()))) {
    clean = false;
    log("events could not all be sent to the other instances before exit");
  }
  const streams = restartStreams();
  if (streams) log(`ended ${streams} live stream(s): their browsers reconnect to another instance`);
  for (const [what, close] of [
    ["tool server connections", () => rt.services.mcp.close()],
    ["event bridge", () => rt.bridge.close()],
    ["run lock", () => lock.close()],
    ["database pool", () => db.$disconnect()],
  ] as const) {
    try {
      if (!(await within(FINISH_WAIT_MS, close()))) log(`closing the ${what} timed out`);
    } catch (error) {
      log(`closing the ${what} failed: ${describeDbError(error)}`);
    }
  }
  return clean;
}

/**
 * Take over SIGTERM and SIGINT (the launcher sets NEXT_MANUAL_SIG_HANDLE, so Next.js does
 * not): drain the runtime, if this process booted one, then exit — 0 when it ended
 * cleanly. A repeated signal (a terminal sends SIGINT to the launcher and the server
 * alike) changes nothing; a drain that hangs is cut short.
 */
export function handleSignals(log: Log = (line) => shutdownLog.info(line)): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const graceMs = config().shutdown.graceMs;
    log(`${signal}: shutting down`);
    setTimeout(() => {
      log("shutdown took too long: exiting now");
      process.exit(1);
    }, graceMs + ABORT_WAIT_MS + 4 * FINISH_WAIT_MS + 2_000).unref();
    void finish(graceMs, log).then(
      (clean) => process.exit(clean ? 0 : 1),
      (error: unknown) => {
        shutdownLog.error("failed", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

async function finish(graceMs: number, log: Log): Promise<boolean> {
  const pending = booted();
  let rt: Runtime;
  try {
    if (!pending) return true;
    rt = await pending;
  } catch (error) {
    // It never booted (say the database was down): there is nothing to drain.
    log(`nothing to drain (the server had not started its services: ${describeDbError(error)})`);
    return true;
  }
  const clean = await drain(rt, graceMs, log);
  log(clean ? "done" : "done, not cleanly");
  return clean;
}
