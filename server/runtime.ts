import { configServices } from "./assemble";
import { Bus, is } from "./bus/bus";
import { type Bridge, bridge, describeDbError, everyEvent } from "./bus/postgres";
import { type Config, config } from "./config";
import { createDb } from "./db/client";
import { restartStreams } from "./http";
import { Sandbox } from "./sandbox/sandbox";
import type { Services } from "./services";
import { Session } from "./session";
import { Handover } from "./session/runner";
import { wire } from "./session/wire";
import { sweepToolOutput } from "./tool/truncate";
import { logger, setLogLevel } from "./log";

const log = logger("runtime");

/**
 * The server's long-lived pieces, made once per process: the configuration, the services
 * (database, bus, clock, run lock, runners, permissions, sandbox, models, tools) and the
 * bus's PostgreSQL bridge. Kept on globalThis so Next's dev reloads reuse them instead of
 * leaking connections. Booting also recovers sessions a crash left busy, and keeps doing
 * so for sessions other instances leave behind.
 */
export interface Runtime {
  config: Config;
  services: Services;
  bridge: Bridge;
  /** Stop the periodic work (crash recovery, sweeps): the instance is shutting down (server/shutdown.ts). */
  stopTimers(): void;
}

const KEY = Symbol.for("parley.runtime");
type Holder = { [KEY]?: Promise<Runtime> };

/**
 * How often an instance looks for sessions another instance left busy when it died (a
 * kill, a crash): they are closed within this long (plus the pass itself). One query
 * finds the busy sessions whose run lock nobody holds.
 */
export const RECOVERY_INTERVAL_MS = 5_000;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

async function boot(): Promise<Runtime> {
  const cfg = config();
  setLogLevel(cfg.logLevel);
  if (!cfg.databaseUrl) {
    throw new Error(
      "DATABASE_URL is not set. Start Parley with `npm run dev` or `npm start`, which start the embedded PostgreSQL, or set DATABASE_URL.",
    );
  }
  const db = createDb(cfg.databaseUrl);
  const bus = new Bus();
  // Events go through PostgreSQL only while another instance listens (a lone server NOTIFYs
  // nothing). After a reconnection, browsers streaming from this instance may have missed
  // events of the others: end their streams so they reconnect and read the stored state again.
  const link = await bridge(bus, cfg.databaseUrl, { encode: wire, optional: everyEvent, onReconnect: () => restartStreams() });
  const sandbox = await Sandbox.create(cfg.sandbox);
  if (sandbox.state.kind === "bwrap") log.info(sandbox.describe());
  else log.warn(sandbox.describe());
  const services = await configServices(cfg, db, bus, { sandbox });
  if (services.snapshots.available) log.info(services.snapshots.describe());
  else log.warn(services.snapshots.describe());
  services.lock.onLost = (error) => {
    log.error(`lost the run-lock connection (${describeDbError(error)}); stopping local runners`);
    services.runners.abortAll("The server lost its database connection.");
  };
  // One pass at a time: a pass that takes longer than the interval is not joined by the next.
  let recovering: Promise<void> | undefined;
  const recoverNow = (strandedTools = false) =>
    (recovering ??= recoverAndAnswer(services, strandedTools)
      .catch((error: unknown) => log.error("crash recovery failed", error))
      .finally(() => (recovering = undefined)));
  // A session an instance that is shutting down could not answer: started here (its lock
  // decides which instance, when several get this).
  bus.subscribeAll((event) => {
    if (!is(event, Handover) || !services.runners.accepting || !event.scope.sessionId) return;
    Session.startRunner(services, event.scope.teamId, event.scope.sessionId).catch((error: unknown) =>
      log.error(`could not take over ${event.scope.sessionId}`, error),
    );
  });
  // At start, tools left running in idle sessions are closed too (a scan of every tool part).
  await recoverNow(true);
  const timers = [setInterval(() => void recoverNow(), RECOVERY_INTERVAL_MS).unref()];
  const sweep = () => sweepToolOutput(cfg.dataDir).catch((error: unknown) => log.error("tool-output sweep failed", error));
  void sweep();
  timers.push(setInterval(() => void sweep(), SWEEP_INTERVAL_MS).unref());
  return { config: cfg, services, bridge: link, stopTimers: () => timers.forEach(clearInterval) };
}

/** Recover interrupted sessions and answer prompts that arrived meanwhile. */
async function recoverAndAnswer(services: Services, strandedTools: boolean): Promise<void> {
  const ids = await Session.recoverInterrupted(services, { strandedTools });
  if (ids.length) log.info(`recovered ${ids.length} interrupted session(s): ${ids.join(", ")}`);
}

/** The runtime if this process has booted it (or is booting it), without booting it. */
export function booted(): Promise<Runtime> | undefined {
  return (globalThis as Holder)[KEY];
}

export function runtime(): Promise<Runtime> {
  const holder = globalThis as Holder;
  holder[KEY] ??= boot().catch((error: unknown) => {
    delete holder[KEY];
    throw error;
  });
  return holder[KEY];
}
