import { describeDbError, isConnectionError } from "./bus/postgres";
import type { Runtime } from "./runtime";

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

async function timed(work: () => Promise<unknown>): Promise<Check> {
  const start = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), CHECK_TIMEOUT_MS)));
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

/** The checks of a booted runtime. */
export async function check(rt: Runtime): Promise<Health> {
  const [database, lock] = await Promise.all([timed(() => rt.services.db.$queryRaw`SELECT 1`), timed(() => rt.services.lock.ping())]);
  const bridge: Check = rt.bridge.connected ? { ok: true, ms: 0 } : { ok: false, ms: 0, error: "disconnected" };
  const ok = database.ok && bridge.ok && lock.ok;
  return { status: !rt.services.runners.accepting ? "draining" : ok ? "ok" : "failing", checks: { database, bridge, lock } };
}

/** The health of a runtime that could not boot (its database unreachable at start, say). */
export function bootFailed(error: unknown): Health {
  console.error(`[health] the server could not start its services: ${describeDbError(error)}`);
  const failed: Check = { ok: false, ms: 0, error: kind(error) };
  return { status: "failing", checks: { database: failed, bridge: { ok: false, ms: 0, error: "disconnected" }, lock: failed } };
}

let last: { at: number; health: Health } | undefined;
let running: Promise<Health> | undefined;

/** The health of this instance, booting its runtime when nothing has yet. */
export function health(boot: () => Promise<Runtime>): Promise<Health> {
  if (last && performance.now() - last.at < CACHE_MS) return Promise.resolve(last.health);
  running ??= boot()
    .then(check, bootFailed)
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
