import { mkdtempSync, rmSync } from "node:fs";
import type { LanguageModel } from "ai";
import os from "node:os";
import path from "node:path";
import { type Parts, configServices } from "../server/assemble";
import { Bus } from "../server/bus/bus";
import { loadConfig } from "../server/config";
import type { Db } from "../server/db/client";
import { startEmbeddedDatabase } from "../server/db/embedded";
import type { Services } from "../server/services";
import { applyMigrations } from "../server/db/migrate";
import * as Id from "../server/id";
import { ensureSampleProject } from "../server/project/sample";

/** The database a benchmark runs on: DATABASE_URL, or an embedded PostgreSQL in a temporary directory. */
export interface BenchDatabase {
  url: string;
  /** True on DATABASE_URL: the bench must take away what it seeded. */
  shared: boolean;
  /** The temporary directory of the embedded server (undefined on DATABASE_URL). */
  dir: string | undefined;
  /** Stops the embedded server and removes its directory (nothing on DATABASE_URL). */
  close(): Promise<void>;
}

export async function benchDatabase(name: string, log: (message: string) => void = () => {}): Promise<BenchDatabase> {
  const external = process.env.DATABASE_URL;
  if (external) {
    log("Using DATABASE_URL (what the bench seeds is removed afterwards).");
    await applyMigrations(external);
    return { url: external, shared: true, dir: undefined, close: async () => {} };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), `parley-bench-${name}-`));
  log(`Starting an embedded PostgreSQL in ${dir} …`);
  const embedded = await startEmbeddedDatabase({ dataDir: dir }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const close = async () => {
    await embedded.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await applyMigrations(embedded.url);
  } catch (error) {
    await close();
    throw error;
  }
  return { url: embedded.url, shared: false, dir, close };
}

/**
 * Services for a benchmark's seeding through the session module, on its database client
 * (the run lock connects to the client's database only when a loop runs).
 */
export async function benchServices(db: Db, url = process.env.DATABASE_URL ?? "postgresql://unused/unused", overrides: Partial<Parts> = {}): Promise<Services> {
  return configServices(loadConfig({ ...process.env, DATABASE_URL: url }), db, overrides.bus ?? new Bus(), overrides);
}

/** A team with one member and a sample project, for the benchmark's sessions. */
export async function benchWorkspace(db: Db, directory: string) {
  ensureSampleProject(directory);
  const teamId = Id.ascending("team");
  const userId = Id.ascending("user");
  const projectId = Id.ascending("project");
  await db.team.create({ data: { id: teamId, name: "Benchmark", slug: teamId } });
  await db.user.create({ data: { id: userId, email: `${userId}@bench.local`, name: "Bench" } });
  await db.membership.create({ data: { teamId, userId, role: "owner" } });
  await db.project.create({ data: { id: projectId, teamId, name: "project", directory } });
  return { actor: { userId, teamId }, projectId };
}

/** Services settings of a benchmark: its folder for data and projects, no compaction, manual sharing. */
export function benchSettings(dir: string): Parts["settings"] {
  return { dataDir: dir, projectsRoot: dir, forbidden: [dir], maxAttempts: 3, compaction: { auto: false, prune: false }, share: "manual" };
}

/** Models of a benchmark: every reference answered by `language`, free and with a huge context. */
export function benchModels(language: LanguageModel): Parts["models"] {
  return {
    resolve: (ref) => ({ ref, language, limit: { context: 1_000_000, output: 100_000 }, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }),
    default: () => ({ providerId: "offline", modelId: "parley-offline" }),
    available: () => [],
  };
}

/** Ids made in SQL follow the real format: prefix, 16 hex of time (inverted for sessions: ~x is 2^64 - 1 - x), 14 base62. */
export const SQL_ID_FUNCTIONS = `
CREATE FUNCTION pg_temp.sid(n bigint, base bigint) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT 'ses_' || lpad(to_hex(~(base * 4096 + n)), 16, '0') || substr(md5('s' || n), 1, 14) $$;
CREATE FUNCTION pg_temp.mid(n bigint, base bigint) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT 'msg_' || lpad(to_hex(base * 4096 + n), 16, '0') || substr(md5('m' || n), 1, 14) $$;
CREATE FUNCTION pg_temp.pid(n bigint, base bigint) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT 'prt_' || lpad(to_hex(base * 4096 + n), 16, '0') || substr(md5('p' || n), 1, 14) $$;
`;
