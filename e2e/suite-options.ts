import { existsSync } from "node:fs";
import { type PlaywrightTestConfig, devices } from "@playwright/test";

/**
 * What both browser suites share (playwright.config.ts, playwright.instances.config.ts).
 *
 * One test at a time, and one retry, reported: a test that passes only on its retry is
 * listed as "flaky" by the reporter and counted apart in the summary
 * (scripts/test-summary.mjs); a test that fails twice fails. A failure keeps its trace and
 * a screenshot.
 */
export const serialSuite = {
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 1,
} satisfies PlaywrightTestConfig;

export const failureArtifacts = { trace: "retain-on-failure", screenshot: "only-on-failure" } satisfies PlaywrightTestConfig["use"];

const SYSTEM_CHROMIUM = "/usr/bin/chromium";

/**
 * The browser: a desktop Chrome, Debian's Chromium when installed, since Playwright cannot
 * download its own browser on every machine.
 */
export const desktopChromium = {
  ...devices["Desktop Chrome"],
  launchOptions: {
    executablePath: existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined,
    args: ["--disable-background-networking", "--disable-component-update", "--no-first-run"],
  },
};
