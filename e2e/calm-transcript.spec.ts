import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { SessionPage } from "./pages/session-page";
import { seedSampleChat } from "./support/sample-chat";

/**
 * A calm transcript: the session's chrome is short, so the conversation starts within the
 * first third of the screen on a desktop and on a phone; a step's usage is in the
 * session's details, not under every step; a step's start is at most a hairline; and
 * "Compact" is offered only when there is something to compact.
 */

const DESKTOP = { viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 };

async function expectConversationHigh(page: Page, view: SessionPage): Promise<void> {
  const first = view.messages.first();
  await expect(first).toBeVisible();
  const box = await first.boundingBox();
  const height = page.viewportSize()?.height ?? 0;
  expect(box, "the first message has a box").not.toBeNull();
  expect(box?.y ?? Infinity, `the first message starts at y=${box?.y} of ${height}`).toBeLessThanOrEqual(height / 3);
}

for (const [name, device] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
] as const) {
  test.describe(`on a ${name}`, () => {
    test.use(device);

    test("the conversation starts in the first third of the screen; step usage is in the details, not the transcript", async ({ page, seed }) => {
      const { session } = await seedSampleChat(seed, `Calm ${name} ${Date.now().toString(36)}`);
      const view = new SessionPage(page);
      await view.goto(session.id);
      await expectConversationHigh(page, view);

      // No per-step footer or labelled STEP divider in the transcript.
      await expect(view.part("step-finish")).toHaveCount(0);
      await expect(view.part("step-start")).toHaveCount(0);
      await expect(page.getByTestId("message").getByText(/\d+ in · \d+ out/)).toHaveCount(0);
      await expect(page.getByTestId("message").getByText(/^step$/i)).toHaveCount(0);

      // The details hold them (and the directory, the actions and the share link).
      await expect(page.getByTestId("session-details")).toHaveCount(0);
      await view.openDetails();
      await expect(page.getByTestId("step-usage-row")).toHaveCount(1);
      await expect(page.getByTestId("step-usage-row")).toContainText("1.8K in · 420 out");
      await expect(page.getByTestId("session-details").getByTestId("session-directory")).toBeAttached();
      await expect(page.getByRole("toolbar", { name: "Session actions" })).toBeVisible();
      await expect(page.getByTestId("share-controls")).toBeVisible();
    });
  });
}

test("Compact is offered only when there is something to compact", async ({ page, seed }) => {
  const empty = await seed.session({ title: `Nothing to compact ${Date.now().toString(36)}` });
  await seed.flush();
  const view = new SessionPage(page);
  await view.goto(empty.id);
  await expect(page.getByTestId("session-tokens")).toBeVisible();
  await expect(page.getByTestId("compact-button")).toHaveCount(0);

  const { session } = await seedSampleChat(seed, `Something to compact ${Date.now().toString(36)}`);
  await view.goto(session.id);
  await expect(page.getByTestId("compact-button")).toBeVisible();
});

test("a later step of a reply is set apart by a hairline, not a labelled divider", async ({ page, seed }) => {
  const session = await seed.session({ title: `Steps ${Date.now().toString(36)}` });
  const ask = await seed.userMessage(session.id, [{ type: "text", text: "Two steps please." }]);
  const tokens = { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } };
  const now = Date.now();
  await seed.assistantMessage(session.id, ask.id, [
    { type: "step-start" },
    { type: "text", text: "First step.", time: { start: now, end: now } },
    { type: "step-finish", reason: "tool-calls", cost: 0.001, tokens },
    { type: "step-start" },
    { type: "text", text: "Second step.", time: { start: now, end: now } },
    { type: "step-finish", reason: "stop", cost: 0.001, tokens },
  ]);
  await seed.flush();
  const view = new SessionPage(page);
  await view.goto(session.id);
  await expect(page.getByText("Second step.")).toBeVisible();
  const separators = view.part("step-start");
  await expect(separators).toHaveCount(1);
  await expect(separators.getByRole("separator")).toHaveText("");
  await expect(view.part("step-finish")).toHaveCount(0);
});
