import { randomUUID } from "node:crypto";
import { z } from "zod";
import { define, is } from "../bus/bus";
import type { Bus, Envelope } from "../bus/bus";
import { sleep } from "../abort";
import type { RunLock } from "./lock";
import { Part } from "./message";

/**
 * The runners of this process, one per session, and the cross-instance abort: an abort
 * asked on any instance is published and stops the runner wherever it runs.
 */
export const AbortRequested = define("runner.abort", z.object({ sessionId: z.string() }), { audience: [] });
/**
 * A member asked the waiting retry of a session's model call to start at once ("now") or
 * to end the turn with the failed attempt's error ("stop"): published, so the instance
 * whose processor waits acts on it (server/session/retry-control.ts).
 */
export const RetryRequested = define("runner.retry", z.object({ sessionId: z.string(), action: z.enum(["now", "stop"]) }), { audience: [] });
export type RetryAction = z.infer<typeof RetryRequested.schema>["action"];
/** How a wait before a retry ended: its timer ran out, or a member asked (RetryRequested). */
export type RetryWaitEnd = "timer" | RetryAction;

/**
 * A live stream (re)connected and needs the full state of what the runners of these
 * sessions are streaming now: whichever instance runs one answers with `Synced`, addressed
 * to that one stream (`connection`, open on the instance `instance`), never to the
 * session's other clients.
 */
export const SyncRequested = define(
  "runner.sync",
  z.object({ sessionIds: z.array(z.string()), connection: z.string(), instance: z.string() }),
  { audience: [] },
);
export type SyncRequested = z.infer<typeof SyncRequested.schema>;

/** The answer to a SyncRequested: the parts a runner streams now, for one stream (server/live/streams.ts). */
export const Synced = define("runner.synced", z.object({ connection: z.string(), parts: z.array(Part) }), { audience: [] });
/**
 * A session needs a runner and the instance that found out is shutting down: another
 * instance starts one (server/runtime.ts). Its lock decides which, as for any start.
 */
export const Handover = define("runner.handover", z.object({ sessionId: z.string() }), { audience: [] });

/** The abort reason of runners stopped because their instance shuts down (server/shutdown.ts). */
export const SHUTDOWN_REASON = "The server this reply ran on was restarted: send the message again to continue.";

export interface Resyncable {
  /** The full state of every part still streaming. */
  streamingParts(): Part[];
}

export interface Runner {
  sessionId: string;
  abort: AbortController;
  done: Promise<void>;
  /** The processor of the step being streamed, if any. */
  current?: Resyncable;
}

/** Runs of a session in a row that may fail (their error unstored) before it is left alone. */
export const MAX_FAILED_RUNS = 5;
/** The wait before the first retry of a failed run; doubled for each next one, at most MAX_RETRY_DELAY_MS. */
const FIRST_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 30_000;

export class Runners {
  private readonly running = new Map<string, Runner>();
  /** Failed runs in a row, per session. */
  private readonly failures = new Map<string, number>();
  private readonly waiters = new Map<string, Set<() => void>>();
  /** The retry waits of this process, per session: what settles each (the first request wins). */
  private readonly retryWaits = new Map<string, (action: RetryAction) => void>();
  private draining = false;

  constructor(bus: Bus) {
    bus.subscribeAll((event: Envelope) => {
      if (event.name === AbortRequested.name) {
        const { sessionId } = AbortRequested.schema.parse(event.payload);
        this.running.get(sessionId)?.abort.abort("Aborted by the user");
      } else if (is(event, RetryRequested)) {
        this.controlRetry(event.payload.sessionId, event.payload.action);
      } else if (is(event, SyncRequested)) {
        this.sync(bus, event.payload, event.scope.teamId);
      }
    });
  }

  /**
   * Answer a sync request for the sessions this process runs. The answer is for one
   * stream: handed to this process's subscribers only when the stream is open here, sent
   * to the other instances (the PostgreSQL bridge) otherwise.
   */
  private sync(bus: Bus, request: SyncRequested, teamId: string): void {
    for (const sessionId of request.sessionIds) {
      const parts = this.running.get(sessionId)?.current?.streamingParts();
      if (!parts?.length) continue;
      const payload = { connection: request.connection, parts };
      const scope = { teamId, sessionId };
      if (request.instance === bus.instanceId) bus.deliver({ id: randomUUID(), name: Synced.name, payload, scope, time: Date.now() });
      else bus.publish(Synced, payload, scope, { trusted: true });
    }
  }

  /**
   * The wait before the next attempt of a session's failed model call: "timer" when it ran
   * out, "now" or "stop" when a member asked meanwhile (controlRetry, from any instance). A
   * request that comes in the same tick as the timer still counts, so an accepted "stop"
   * is never followed by another attempt. Rejects with an AbortError when `signal` aborts.
   */
  async waitToRetry(sessionId: string, ms: number, signal: AbortSignal): Promise<RetryWaitEnd> {
    const cut = new AbortController();
    let asked: RetryAction | undefined;
    const settle = (action: RetryAction) => {
      if (asked) return;
      asked = action;
      cut.abort();
    };
    this.retryWaits.set(sessionId, settle);
    try {
      await sleep(ms, AbortSignal.any([signal, cut.signal]));
    } catch (error) {
      if (signal.aborted || !asked) throw error;
    } finally {
      if (this.retryWaits.get(sessionId) === settle) this.retryWaits.delete(sessionId);
    }
    return asked ?? "timer";
  }

  /** Settle the session's retry wait in this process, if one waits here: true when it did. */
  controlRetry(sessionId: string, action: RetryAction): boolean {
    const settle = this.retryWaits.get(sessionId);
    if (!settle) return false;
    settle(action);
    return true;
  }

  get(sessionId: string): Runner | undefined {
    return this.running.get(sessionId);
  }

  add(runner: Runner): void {
    this.running.set(runner.sessionId, runner);
  }

  delete(sessionId: string): void {
    this.running.delete(sessionId);
    const waiting = this.waiters.get(sessionId);
    this.waiters.delete(sessionId);
    for (const resolve of waiting ?? []) resolve();
  }

  /**
   * Run `work` (a step or summary being streamed by `processor`) as the session's current
   * stream, so a client that connects meanwhile can be sent its full state (resync).
   */
  async streaming<T>(sessionId: string, processor: Resyncable, work: () => Promise<T>): Promise<T> {
    const runner = this.running.get(sessionId);
    if (runner) runner.current = processor;
    try {
      return await work();
    } finally {
      if (runner?.current === processor) runner.current = undefined;
    }
  }

  /** A run of the session ended well: its count of failed runs starts again. */
  succeeded(sessionId: string): void {
    this.failures.delete(sessionId);
  }

  /**
   * A run of the session failed and left its message unanswered: how long to wait before
   * the next run, or undefined once MAX_FAILED_RUNS runs in a row failed (the count then
   * starts again, for the next prompt).
   */
  backoff(sessionId: string): number | undefined {
    const failed = (this.failures.get(sessionId) ?? 0) + 1;
    if (failed >= MAX_FAILED_RUNS) {
      this.failures.delete(sessionId);
      return undefined;
    }
    this.failures.set(sessionId, failed);
    return Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** (failed - 1));
  }

  abortAll(reason: string): void {
    for (const runner of this.running.values()) runner.abort.abort(reason);
  }

  /**
   * Whether this process starts runners and takes prompts. False once its shutdown began
   * (stopAccepting): running turns go on, new work goes to the other instances.
   */
  get accepting(): boolean {
    return !this.draining;
  }

  stopAccepting(): void {
    this.draining = true;
  }

  /** Resolves when this process runs nothing, or after `ms`; true when nothing runs. */
  async allIdle(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.running.size) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...this.running.values()].map((r) => r.done)),
        new Promise((resolve) => (timer = setTimeout(resolve, left))),
      ]);
      clearTimeout(timer);
    }
    return true;
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves when no runner of this process works on the session. */
  async idle(sessionId: string): Promise<void> {
    while (this.running.has(sessionId)) {
      await new Promise<void>((resolve) => {
        const set = this.waiters.get(sessionId) ?? new Set();
        set.add(resolve);
        this.waiters.set(sessionId, set);
      });
    }
  }

  /** Whether any instance runs the session. */
  static async busy(lock: RunLock, runners: Runners, sessionId: string): Promise<boolean> {
    return runners.get(sessionId) !== undefined || (await lock.isRunning(sessionId));
  }
}
