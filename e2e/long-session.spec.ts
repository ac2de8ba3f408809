import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { Chat } from "./pages/chat";
import { SessionPage } from "./pages/session-page";
import { PRUNED_OUTPUT, answerText, questionText, seedLongSession } from "./support/bulk";

const COUNT = 5_000;
/** Messages per page (components/chat/use-live-session.ts). */
const PAGE = 50;
/** How close to the end counts as following it (components/chat/message-list.tsx uses 80 px). */
const PINNED = 80;

function distanceFromEnd(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollHeight - window.scrollY - window.innerHeight);
}

/** Characters of text the reply shows so far (its text parts). */
async function textLength(reply: Locator): Promise<number> {
  const texts = await reply.locator('[data-part-type="text"]').allTextContents();
  return texts.join("").length;
}

async function expectPinned(page: Page): Promise<void> {
  await expect.poll(() => distanceFromEnd(page)).toBeLessThanOrEqual(PINNED);
}

test.describe("a very long session", () => {
  test.setTimeout(150_000);

  test("opens at the newest messages, pages older ones in on scroll, keeps the place, stays virtualized, and follows a streamed reply", async ({ page, seed }) => {
    const long = await seedLongSession(seed, COUNT, `Long session ${Date.now().toString(36)}`);
    const view = new SessionPage(page);
    const chat = new Chat(page);
    const list = page.getByTestId("message-list");
    const jump = page.getByTestId("jump-to-latest");
    const message = (n: number) => page.locator(`[data-testid="message"][data-message-id="${long.messageIds[n]}"]`);

    await view.goto(long.sessionId);
    // The newest message, at the bottom of the view; only the newest page is loaded.
    await expect(message(COUNT - 1)).toContainText(answerText(COUNT - 1));
    await expect(message(COUNT - 1)).toBeInViewport();
    await expectPinned(page);
    await expect(jump).toBeHidden();
    await expect(list).toHaveAttribute("data-rows", String(PAGE));
    expect(await view.messages.count()).toBeLessThan(PAGE);

    // A pruned tool output: marked as cleared for the model, still readable here.
    const pruned = page.getByTestId("pruned-tool");
    await expect(pruned.getByTestId("cleared-badge")).toHaveText("Cleared for the model");
    await expect(pruned).toContainText(PRUNED_OUTPUT);

    // Scrolling up: the next older page is fetched when the top of the list comes within
    // 1,200 px (components/chat/message-list.tsx) and comes in above, out of sight — what
    // the reader sees does not move.
    await page.evaluate(() => {
      const list = document.querySelector('[data-testid="message-list"]') as HTMLElement;
      window.scrollTo(0, list.getBoundingClientRect().top + window.scrollY + 1_400);
    });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await expect(list).toHaveAttribute("data-rows", String(PAGE));
    const before = await page.evaluate(() => {
      const rows = [...document.querySelectorAll<HTMLElement>('[data-testid="message"]')];
      const first = rows.filter((el) => el.getBoundingClientRect().top >= 0).sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0];
      if (!first) throw new Error("no message in view");
      const top = first.getBoundingClientRect().top;
      window.scrollBy(0, -300);
      return { id: first.dataset.messageId ?? "", top: top + 300 };
    });
    await expect(list).toHaveAttribute("data-rows", String(2 * PAGE));
    await expect(jump).toBeVisible();
    const kept = page.locator(`[data-testid="message"][data-message-id="${before.id}"]`);
    await expect.poll(() => kept.evaluate((el) => Math.round(el.getBoundingClientRect().top))).toBe(Math.round(before.top));

    // Scrolling on up (the wheel, as a reader does), a message of that older page comes into view.
    const viewport = page.viewportSize() ?? { width: 1280, height: 720 };
    await page.mouse.move(viewport.width / 2, viewport.height / 2);
    const older = message(COUNT - PAGE - 2);
    await expect(async () => {
      await page.mouse.wheel(0, -400);
      await expect(older).toBeInViewport({ timeout: 1_000 });
    }).toPass();
    await expect(older).toContainText(questionText(COUNT - PAGE - 2));

    // Further up, more pages; the DOM keeps only the rows near the viewport.
    const rows = async () => Number(await list.getAttribute("data-rows"));
    while ((await rows()) < 5 * PAGE) {
      const had = await rows();
      await page.evaluate(() => window.scrollTo(0, 0));
      await expect.poll(rows).toBeGreaterThan(had);
    }
    expect(await view.messages.count()).toBeLessThan(PAGE);
    await expect(page.getByText(questionText(0))).toHaveCount(0);

    // Jump to latest: back at the newest message, following again.
    await jump.click();
    await expect(message(COUNT - 1)).toBeInViewport();
    await expectPinned(page);
    await expect(jump).toBeHidden();

    // A reply streams in at the bottom and the view follows it to its end.
    await chat.ask("write a long answer");
    const reply = page.locator('[data-testid="message"][data-role="assistant"]').filter({ hasText: "Here is a long answer" });
    await expect(reply).toHaveCount(1);
    await expect.poll(() => textLength(reply)).toBeGreaterThan(800);
    await expectPinned(page);
    await expect.poll(() => textLength(reply)).toBeGreaterThan(2_400);
    await expectPinned(page);
    await expect(reply).toHaveAttribute("data-state", "done", { timeout: 30_000 });
    await expect(reply).toContainText("If the connection drops, a reconnecting client catches up from the stored text and the live offsets.");
    await expectPinned(page);
    await expect(jump).toBeHidden();
    await expect(reply.locator('[data-part-type="text"]').last()).toBeInViewport();
  });

  test("scrolling up while a reply streams stops following until Jump to latest", async ({ page, seed }) => {
    const long = await seedLongSession(seed, 400, `Long session, paused ${Date.now().toString(36)}`);
    const view = new SessionPage(page);
    const chat = new Chat(page);
    const jump = page.getByTestId("jump-to-latest");
    await view.goto(long.sessionId);
    await expect(page.getByText(answerText(399))).toBeInViewport();

    await chat.ask("write a long answer, slowly: stream slowly");
    const reply = page.locator('[data-testid="message"][data-role="assistant"]').filter({ hasText: "Here is a long answer" });
    await expect.poll(() => textLength(reply)).toBeGreaterThan(100);
    await expectPinned(page);

    // The reader scrolls up: the view stays where they put it while text keeps coming.
    const viewport = page.viewportSize() ?? { width: 1280, height: 720 };
    await page.mouse.move(viewport.width / 2, viewport.height / 2);
    await page.mouse.wheel(0, -400);
    await expect(jump).toBeVisible();
    await expect.poll(() => distanceFromEnd(page)).toBeGreaterThan(PINNED);
    const at = await page.evaluate(() => window.scrollY);
    const length = await textLength(reply);
    await expect.poll(() => textLength(reply)).toBeGreaterThan(length + 40);
    expect(Math.abs((await page.evaluate(() => window.scrollY)) - at)).toBeLessThanOrEqual(2);
    await expect(jump).toBeVisible();

    // Jump to latest: at the end again, and following the rest of the reply.
    await jump.click();
    await expectPinned(page);
    await expect(jump).toBeHidden();
    const now = await textLength(reply);
    await expect.poll(() => textLength(reply)).toBeGreaterThan(now + 40);
    await expectPinned(page);
    await expect(reply.locator('[data-part-type="text"]').last()).toBeInViewport();
    // Done with it: stop the slow reply.
    await chat.stop.click();
    await expect(reply).toHaveAttribute("data-state", "done");
  });
});
