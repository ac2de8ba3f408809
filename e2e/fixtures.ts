import { type Cookie, test as base, expect } from "@playwright/test";
import type { FakeOpenAI } from "../test/fake-openai";
import { E2E_PASSWORD, signUpThroughApi } from "./support/auth";
import { describeSessions } from "./support/diagnose";
import { startFakeProvider } from "./support/fake-provider";
import { Seeder } from "./support/seed";

/** The account a worker signs in with: made once per worker through the real sign-up endpoint. */
export interface Account {
  email: string;
  password: string;
  name: string;
  userId: string;
  /** The sign-in cookie, added to every test's browser context. */
  cookies: Cookie[];
}

/**
 * `account`: one signed-up user per worker (its own team, or the first team on a fresh
 * server); `seed`: a Seeder writing into that user's team; `context` (and so `page`) is
 * signed in as that user. `browser.newContext()` stays anonymous, as someone with only a
 * share link would be. `fake`: the fake OpenAI-compatible server the `compatible/*` models
 * (VISION_MODEL) are answered by, started for the test that asks for it and closed after it.
 */
export const test = base.extend<{ diagnose: void; closeContexts: void; fake: FakeOpenAI }, { account: Account; seed: Seeder }>({
  account: [
    async ({ playwright }, provide, workerInfo) => {
      const baseURL = workerInfo.project.use.baseURL;
      if (!baseURL) throw new Error("playwright.config.ts sets no baseURL");
      const name = `Worker ${workerInfo.workerIndex}`;
      const email = `worker-${workerInfo.workerIndex}-${Date.now().toString(36)}@e2e.parley.test`;
      const request = await playwright.request.newContext({ baseURL });
      try {
        const userId = await signUpThroughApi(request, { email, name, password: E2E_PASSWORD });
        const { cookies } = await request.storageState();
        await provide({ email, password: E2E_PASSWORD, name, userId, cookies });
      } finally {
        await request.dispose();
      }
    },
    { scope: "worker" },
  ],
  seed: [
    async ({ account }, use) => {
      const seeder = await Seeder.open(account.userId);
      await use(seeder);
      await seeder.close();
    },
    { scope: "worker" },
  ],
  // After a failed test: print what the server stored for the sessions it touched.
  diagnose: [
    async ({ seed }, use, testInfo) => {
      const started = new Date();
      await use();
      if (testInfo.status === testInfo.expectedStatus) return;
      const text = await describeSessions(seed.db, seed.ctx.actor.teamId, started).catch((error: unknown) => `could not read the sessions: ${String(error)}`);
      console.log(`\n── stored state after the failure of "${testInfo.title}" ──\n${text}`);
      await testInfo.attach("stored-sessions", { body: text, contentType: "text/plain" });
    },
    { auto: true },
  ],
  // Browser contexts a test opened itself (a private window, a second user) are closed
  // with it, so their pages do not stay open, streaming, into the following tests.
  closeContexts: [
    async ({ browser }, use) => {
      const before = new Set(browser.contexts());
      await use();
      // allSettled: a context the test already closed (or whose browser went) needs nothing more.
      await Promise.allSettled(browser.contexts().filter((c) => !before.has(c)).map((c) => c.close()));
    },
    { auto: true },
  ],
  fake: async ({}, provide) => {
    const fake = await startFakeProvider();
    await provide(fake);
    await fake.close();
  },
  context: async ({ context, account }, provide) => {
    await context.addCookies(account.cookies);
    await provide(context);
  },
});

export { expect };
