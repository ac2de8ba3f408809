import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { type SqlDriverAdapter, type SqlMigrationAwareDriverAdapterFactory, bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import type { DiffTarget, MigrationList, SchemaEngine as SchemaEngineType } from "@prisma/schema-engine-wasm";

/**
 * Offline migrations through Prisma's own schema engine compiled to WebAssembly. The
 * engine writes `_prisma_migrations` exactly as `prisma migrate deploy` does, so either
 * tool can take over a database the other migrated.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
export const SCHEMA_PATH = path.join(ROOT, "prisma/schema.prisma");
export const MIGRATIONS_DIR = path.join(ROOT, "prisma/migrations");

type Bindings = typeof import("@prisma/schema-engine-wasm/schema_engine_bg");

let bindings: Promise<Bindings> | undefined;

async function loadEngine(): Promise<Bindings> {
  bindings ??= (async () => {
    const require = createRequire(import.meta.url);
    const bgPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const bg: Bindings = await import("@prisma/schema-engine-wasm/schema_engine_bg");
    const bytes = readFileSync(path.join(path.dirname(bgPath), "schema_engine_bg.wasm"));
    const wasmModule = new WebAssembly.Module(bytes);
    const imports: WebAssembly.Imports = {};
    for (const entry of WebAssembly.Module.imports(wasmModule)) {
      imports[entry.module] ??= bg as unknown as WebAssembly.ModuleImports;
    }
    const instance = new WebAssembly.Instance(wasmModule, imports);
    bg.__wbg_set_wasm(instance.exports);
    const start = instance.exports.__wbindgen_start;
    if (typeof start === "function") start();
    return bg;
  })();
  return bindings;
}

/**
 * The pg adapter for the engine, keeping every connection it opens so that they are
 * closed when the engine is done: left open, the session-level advisory lock the engine
 * takes while migrating would outlive the migration, and every other process migrating
 * the same database (a second instance starting) would time out waiting for it.
 */
function closingAdapter(url: string): { factory: SqlMigrationAwareDriverAdapterFactory; close(): Promise<void> } {
  const pgFactory = new PrismaPg({ connectionString: url });
  const opened: SqlDriverAdapter[] = [];
  const track = (adapter: SqlDriverAdapter) => {
    opened.push(adapter);
    return wholeScripts(adapter);
  };
  return {
    factory: {
      provider: pgFactory.provider,
      adapterName: pgFactory.adapterName,
      connect: async () => track(await pgFactory.connect()),
      connectToShadowDb: async () => track(await pgFactory.connectToShadowDb()),
    },
    close: async () => {
      await Promise.all(opened.splice(0).map((adapter) => adapter.dispose()));
    },
  };
}

/**
 * `adapter` running a migration script whole, as `prisma migrate deploy` does: one query of
 * PostgreSQL's simple protocol (its statements in one implicit transaction). The pg
 * adapter's own cuts the script at every semicolon, even inside a string or a function's
 * body (`$$ … $$`), which a PL/pgSQL function cannot do without.
 */
function wholeScripts(adapter: SqlDriverAdapter): SqlDriverAdapter {
  adapter.executeScript = async (script: string) => {
    // No arguments: pg sends it with the simple protocol, which takes several statements.
    await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
  };
  return adapter;
}

async function withEngine<T>(url: string, run: (engine: SchemaEngineType) => Promise<T>): Promise<T> {
  const bg = await loadEngine();
  const schema = readFileSync(SCHEMA_PATH, "utf8");
  const connections = closingAdapter(url);
  const adapter = bindMigrationAwareSqlAdapterFactory(connections.factory);
  const logs: string[] = [];
  let engine: SchemaEngineType;
  try {
    engine = await bg.SchemaEngine.new({ datamodels: [[SCHEMA_PATH, schema]] }, (line: string) => logs.push(line), adapter);
  } catch (error) {
    await connections.close();
    throw error;
  }
  try {
    return await run(engine);
  } catch (error) {
    throw new Error(`schema engine failed: ${describe(error)}${logs.length ? `\n${logs.join("\n")}` : ""}`, {
      cause: error,
    });
  } finally {
    engine.free();
    await connections.close();
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && "message" in error) return String(error.message);
  return JSON.stringify(error);
}

function migrationsList(): MigrationList {
  const lockPath = path.join(MIGRATIONS_DIR, "migration_lock.toml");
  const directories = existsSync(MIGRATIONS_DIR)
    ? readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : [];
  return {
    baseDir: MIGRATIONS_DIR,
    lockfile: { path: "migration_lock.toml", content: existsSync(lockPath) ? readFileSync(lockPath, "utf8") : null },
    shadowDbInitScript: "",
    migrationDirectories: directories.map((name) => {
      const file = path.join(MIGRATIONS_DIR, name, "migration.sql");
      return {
        path: name,
        migrationFile: {
          path: "migration.sql",
          content: existsSync(file)
            ? { tag: "ok" as const, value: readFileSync(file, "utf8") }
            : { tag: "error" as const, value: `missing ${file}` },
        },
      };
    }),
  };
}

const NO_FILTER = { externalTables: [], externalEnums: [] };

/** Apply every migration of prisma/migrations not yet applied; returns the names applied. */
export async function applyMigrations(url: string): Promise<string[]> {
  return withEngine(url, async (engine) => {
    const result = await engine.applyMigrations({ migrationsList: migrationsList(), filters: NO_FILTER });
    return result.appliedMigrationNames;
  });
}

/**
 * Write a new migration for the difference between the last migration and
 * prisma/schema.prisma. Neither the engine's shadow database nor introspection works in
 * its WebAssembly build with the pg adapter, so every migration folder keeps the schema
 * it was made from (`schema.prisma`, ignored by `prisma migrate deploy`) and the new
 * migration is the diff from that snapshot. The script is then proven on a scratch
 * database: all migrations replayed, then the new one. Returns the new folder, or
 * undefined when the schema has no change.
 */
export async function createMigration(url: string, name: string): Promise<string | undefined> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`migration name must be snake_case, got "${name}"`);
  const list = migrationsList();
  const last = list.migrationDirectories.at(-1);
  let from: DiffTarget = { tag: "empty" };
  if (last) {
    const snapshot = path.join(MIGRATIONS_DIR, last.path, "schema.prisma");
    if (!existsSync(snapshot)) {
      throw new Error(`${snapshot} is missing: the latest migration was not made by this script, so the schema it ends at is unknown`);
    }
    from = { tag: "schemaDatamodel", files: [{ path: SCHEMA_PATH, content: readFileSync(snapshot, "utf8") }] };
  }
  const schema = readFileSync(SCHEMA_PATH, "utf8");
  const script = await withEngine(url, async (engine) => {
    const diff = await engine.diff({
      from,
      to: { tag: "schemaDatamodel", files: [{ path: SCHEMA_PATH, content: schema }] },
      script: true,
      exitCode: true,
      filters: NO_FILTER,
    });
    return diff.exitCode === 2 ? (diff.stdout ?? "") : undefined;
  });
  if (script === undefined) return undefined;

  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const folderName = `${stamp}_${name}`;
  await proveOnScratchDatabase(url, list, { path: folderName, migrationFile: { path: "migration.sql", content: { tag: "ok", value: script } } });

  const folder = path.join(MIGRATIONS_DIR, folderName);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, "migration.sql"), script);
  writeFileSync(path.join(folder, "schema.prisma"), schema);
  const lock = path.join(MIGRATIONS_DIR, "migration_lock.toml");
  if (!existsSync(lock)) {
    writeFileSync(
      lock,
      '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
    );
  }
  return folder;
}

async function proveOnScratchDatabase(url: string, list: MigrationList, next: MigrationList["migrationDirectories"][number]): Promise<void> {
  const scratch = `parley_scratch_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${scratch}`);
    try {
      await withEngine(withDatabase(url, scratch), (engine) =>
        engine.applyMigrations({
          migrationsList: { ...list, migrationDirectories: [...list.migrationDirectories, next] },
          filters: NO_FILTER,
        }),
      );
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
