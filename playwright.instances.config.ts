import { defineConfig } from "@playwright/test";
import { desktopChromium, failureArtifacts, serialSuite } from "./e2e/suite-options";
import type { DatabaseKind } from "./e2e/instances/support/postgres";

/**
 * The two-instance suite (`npm run test:instances`, part of `npm test`): two production
 * servers on one PostgreSQL, a scripted model over HTTP, SSE clients and Chromium
 * (e2e/instances). It runs once per database: the embedded PostgreSQL's binaries, then a
 * PostgreSQL that is not the embedded one (Debian's `postgresql` package, or
 * PARLEY_TEST_EXTERNAL_DATABASE_URL) — skipped, saying why, when there is none.
 * PARLEY_DIST_DIR names the build (default `.next`, built when missing or stale),
 * PARLEY_INSTANCES_PORT the first of its ports (default 3310).
 */
export default defineConfig<{ database: DatabaseKind }>({
  testDir: "e2e/instances",
  globalSetup: "./e2e/instances/support/global-setup.ts",
  // One worker: a project's tests share its servers (started once per worker), one test at a time.
  ...serialSuite,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  outputDir: "test-results/instances",
  reporter: [["list"], ["json", { outputFile: "reports/playwright-instances.json" }]],
  use: failureArtifacts,
  projects: [
    { name: "embedded-postgres", use: { ...desktopChromium, database: "embedded" } },
    { name: "external-postgres", use: { ...desktopChromium, database: "external" } },
  ],
});
