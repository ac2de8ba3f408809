import { mkdirSync, realpathSync } from "node:fs";
import { Bus } from "./bus/bus";
import { type Bridge, bridge, describeDbError } from "./bus/postgres";
import { type Config, config } from "./config";
import { type Db, createDb } from "./db/client";
import { clusterDirectory } from "./db/cluster";
import { restartStreams } from "./http";
import { Permissions } from "./permission/permission";
import { defaultModel, loadModel, smallModel } from "./provider/provider";
import type { Engine } from "./session/engine";
import { RunLock } from "./session/lock";
import { type Deps, start, unanswered } from "./session/prompt";
import { recover } from "./session/recovery";
import { Sandbox } from "./sandbox/sandbox";
import { Runners } from "./session/runner";
import { wire } from "./session/wire";
import { builtinTools, executeTool } from "./tool/registry";
import { sweepToolOutput } from "./tool/truncate";

/**
 * The server's long-lived pieces, made once per process: configuration, the database
 * client, the event bus and its PostgreSQL bridge, the run lock, the runners and the
 * permission service. Kept on globalThis so Next's dev reloads reuse them instead of
 * leaking connections. Booting also recovers sessions a crash left busy.
 */
export interface Runtime {
  config: Config;
  db: Db;
  bus: Bus;
  bridge: Bridge;
  lock: RunLock;
  runners: Runners;
  permissions: Permissions;
  sandbox: Sandbox;
  /** What the prompt loop needs. */
  deps: Deps;
}

const KEY = Symbol.for("parley.runtime");
type Holder = { [KEY]?: Promise<Runtime> };

const RECOVERY_INTERVAL_MS = 15_000;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

async function boot(): Promise<Runtime> {
  const cfg = config();
  if (!cfg.databaseUrl) {
    throw new Error(
      "DATABASE_URL is not set. Start Parley with `npm run dev` or `npm start`, which start the embedded PostgreSQL, or set DATABASE_URL.",
    );
  }
  const db = createDb(cfg.databaseUrl);
  const bus = new Bus();
  // After a reconnection, browsers streaming from this instance may have missed events of
  // the others: end their streams so they reconnect and read the stored state again.
  const link = await bridge(bus, cfg.databaseUrl, { encode: wire, onReconnect: () => restartStreams() });
  const lock = new RunLock(cfg.databaseUrl);
  const runners = new Runners(bus);
  const permissions = new Permissions(db, bus, { configRules: cfg.permission });
  const sandbox = await Sandbox.create(cfg.sandbox);
  const log = sandbox.state.kind === "bwrap" ? console.log : console.warn;
  log(`[runtime] ${sandbox.describe()}`);
  const dataDir = realDirectory(cfg.dataDir);
  lock.onLost = (error) => {
    console.error(`[runtime] lost the run-lock connection (${describeDbError(error)}); stopping local runners`);
    runners.abortAll("The server lost its database connection.");
  };
  const engine: Engine = {
    db,
    bus,
    lock,
    dataDir,
    resolveModel: (ref) => loadModel(ref, cfg),
    defaultModel: () => defaultModel(cfg),
    smallModel: () => loadModel(smallModel(cfg), cfg),
    maxAttempts: cfg.retry.maxAttempts,
    compaction: cfg.compaction,
  };
  // Beyond the project, tools never reach Parley's own data (the embedded database's
  // cluster may live outside the data directory) or the folder of every team's projects.
  const forbidden = [dataDir, realDirectory(cfg.projectsRoot), clusterDirectory(cfg.dataDir)];
  const deps: Deps = { engine, runners, permissions, sandbox, forbidden, tools: builtinTools(), executeTool };

  const recoverNow = () =>
    recover({ db, bus, lock, permissions, isLocal: (id) => runners.get(id) !== undefined })
      .then(async (ids) => {
        if (ids.length) console.log(`[runtime] recovered ${ids.length} interrupted session(s): ${ids.join(", ")}`);
        // A prompt that arrived while a session was being recovered found it locked: answer it now.
        for (const id of ids) {
          if (!(await unanswered(deps, id))) continue;
          const row = await db.session.findUnique({ where: { id }, select: { teamId: true } });
          if (row) await start(deps, row.teamId, id);
        }
      })
      .catch((error: unknown) => console.error("[runtime] crash recovery failed", error));
  await recoverNow();
  setInterval(() => void recoverNow(), RECOVERY_INTERVAL_MS).unref();
  const sweep = () =>
    sweepToolOutput(cfg.dataDir).catch((error: unknown) => console.error("[runtime] tool-output sweep failed", error));
  void sweep();
  setInterval(() => void sweep(), SWEEP_INTERVAL_MS).unref();

  return { config: cfg, db, bus, bridge: link, lock, runners, permissions, sandbox, deps };
}

/** A directory's real path (made when missing), so path checks see through symlinks. */
function realDirectory(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

export function runtime(): Promise<Runtime> {
  const holder = globalThis as Holder;
  holder[KEY] ??= boot().catch((error: unknown) => {
    delete holder[KEY];
    throw error;
  });
  return holder[KEY];
}
