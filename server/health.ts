import { describeDbError, isConnectionError } from "./bus/postgres";
import type { Runtime } from "./runtime";
import { logger } from "./log";

const log = logger("health");

/**
 * What /api/health answers, for load balancers and operators: whether this instance can
 * do its work — its database pool answers a query, its event bridge (LISTEN/NOTIFY) is
 * connected, its run-lock connection answers — and whether it is shutting down. One
 * trivial query per connection; concurrent checks share one run, and a result is reused
 * for CACHE_MS, so polling cannot load the database. No addresses, names or messages of
 * the database are shown: a failed check says only what kind of failure it was.
 */

export interface Check {
  ok: boolean;
  /** How long the check took (ms). */
  ms: number;
  /** What went wrong, as a kind: "unreachable", "timeout", a PostgreSQL error code, "disconnected". */
  error?: string;
}

export interface Health {
  status: "ok" | "failing" | "draining";
  checks: { database: Check; bridge: Check; lock: Check };
}

/** A check slower than this fails (ms). */
export const CHECK_TIMEOUT_MS = 2_000;
/** A result younger than this is answered again (ms). */
const CACHE_MS = 1_000;

/** What the checks look at: a round trip on the pool and on the lock connection, the bridge's state, the shutdown. */
export interface Probes {
  database(): Promise<unknown>;
  lock(): Promise<unknown>;
  bridgeConnected(): boolean;
  draining(): boolean;
}

export function probesOf(rt: Runtime): Probes {
  return {
    database: () => rt.services.db.$queryRaw`SELECT 1`,
    lock: () => rt.services.lock.ping(),
    bridgeConnected: () => rt.bridge.connected,
    draining: () => !rt.services.runners.accepting,
  };
}

async function timed(work: () => Promise<unknown>, timeoutMs: number): Promise<Check> {
  const start = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  try {
    const outcome = await Promise.race([work().then(() => "ok" as const), timeout]);
    const ms = Math.round(performance.now() - start);
    return outcome === "ok" ? { ok: true, ms } : { ok: false, ms, error: "timeout" };
  } catch (error) {
    return { ok: false, ms: Math.round(performance.now() - start), error: kind(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** A failure as a kind, never its message (which may name hosts, users or databases). */
function kind(error: unknown): string {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  return isConnectionError(error) ? "unreachable" : "failed";
}

/** Run the checks. */
export async function check(probes: Probes, timeoutMs = CHECK_TIMEOUT_MS): Promise<Health> {
  const [database, lock] = await Promise.all([timed(probes.database, timeoutMs), timed(probes.lock, timeoutMs)]);
  const bridge: Check = probes.bridgeConnected() ? { ok: true, ms: 0 } : { ok: false, ms: 0, error: "disconnected" };
  const ok = database.ok && bridge.ok && lock.ok;
  return { status: probes.draining() ? "draining" : ok ? "ok" : "failing", checks: { database, bridge, lock } };
}

/** The health of a runtime that could not boot (its database unreachable at start, say). */
export function bootFailed(error: unknown): Health {
  log.error(`the server could not start its services: ${describeDbError(error)}`);
  const failed: Check = { ok: false, ms: 0, error: kind(error) };
  return { status: "failing", checks: { database: failed, bridge: { ok: false, ms: 0, error: "disconnected" }, lock: failed } };
}

let last: { at: number; health: Health } | undefined;
let running: Promise<Health> | undefined;

/** The health of this instance, booting its runtime when nothing has yet. */
export function health(boot: () => Promise<Runtime>): Promise<Health> {
  if (last && performance.now() - last.at < CACHE_MS) return Promise.resolve(last.health);
  running ??= boot()
    .then((rt) => check(probesOf(rt)), bootFailed)
    .then((result) => {
      last = { at: performance.now(), health: result };
      return result;
    })
    .finally(() => (running = undefined));
  return running;
}

export function httpStatusOf(result: Health): number {
  return result.status === "ok" ? 200 : 503;
}
