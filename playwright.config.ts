import { defineConfig } from "@playwright/test";
import { desktopChromium, failureArtifacts, serialSuite } from "./e2e/suite-options";

/**
 * End-to-end tests in a real Chromium against the production build, on its own data
 * directory (.data-e2e, wiped at every start) and port. PARLEY_E2E_PORT, PARLEY_E2E_DATA_DIR
 * and PARLEY_DIST_DIR (the Next.js build directory) let two runs share one checkout. The
 * browser, one test at a time and the retry: e2e/suite-options.ts.
 */
const PORT = Number(process.env.PARLEY_E2E_PORT ?? 3100);
const DATA_DIR = process.env.PARLEY_E2E_DATA_DIR ?? ".data-e2e";
/** Where specs start a fake OpenAI-compatible server (e2e/support/fake-provider.ts) for the `compatible/*` models. */
const FAKE_OPENAI_PORT = Number(process.env.PARLEY_E2E_OPENAI_PORT ?? PORT + 1);

export default defineConfig({
  testDir: "e2e",
  // Two servers on one database: its own suite (playwright.instances.config.ts).
  testIgnore: ["**/e2e/instances/**"],
  // A failed attempt prints what the server stored (e2e/fixtures.ts `diagnose`).
  ...serialSuite,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { open: "never" }], ["json", { outputFile: "reports/playwright.json" }]],
  use: { baseURL: `http://127.0.0.1:${PORT}`, ...failureArtifacts },
  projects: [{ name: "chromium", use: desktopChromium }],
  webServer: {
    command: `rm -rf ${DATA_DIR} && npx tsx scripts/parley.ts start --build`,
    url: `http://127.0.0.1:${PORT}`,
    // The production build comes first (`--build`): several minutes on a busy 2-core machine.
    timeout: 600_000,
    reuseExistingServer: false,
    // SIGTERM lets the launcher stop its embedded PostgreSQL cleanly.
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PARLEY_DATA_DIR: DATA_DIR,
      PARLEY_PROJECT_DIR: `${DATA_DIR}/project`,
      // Each Playwright worker signs up its own user (e2e/fixtures.ts), each with a team.
      PARLEY_SIGNUP: "open",
      // Tests sign up and in faster than the production rate limit allows (3 per 10 s).
      PARLEY_AUTH_RATE_LIMIT: "false",
      // e2e/projects-git.spec.ts clones from a git server the spec starts on 127.0.0.1 over plain http.
      PARLEY_GIT_ALLOW_HTTP: "true",
      // Two attempts per model step: a retried failure still shows (e2e/chat.spec.ts), and a
      // reply that keeps failing ends in seconds instead of minutes (e2e/revert.spec.ts).
      PARLEY_RETRY_MAX_ATTEMPTS: "2",
      // The offline model stays the default; `compatible/e2e-vision` (e2e/parley.config.json, a
      // model that sees images) is answered by the fake server a spec starts on this port.
      PARLEY_MODEL: "offline/parley-offline",
      OPENAI_BASE_URL: `http://127.0.0.1:${FAKE_OPENAI_PORT}/v1`,
      PARLEY_CONFIG: "e2e/parley.config.json",
      // At the end, a turn a test left running is stopped within 2 s, well inside gracefulShutdown's 15 s.
      PARLEY_SHUTDOWN_GRACE_MS: "2000",
      PORT: String(PORT),
    },
  },
});
