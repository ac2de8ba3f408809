import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startEmbeddedDatabase } from "../server/db/embedded";
import { applyMigrations } from "../server/db/migrate";

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
