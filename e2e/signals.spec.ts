import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { Chat } from "./pages/chat";
import { SessionPage } from "./pages/session-page";
import { prompt, reply } from "./support/api";
import { tag } from "./support/people";

/**
 * Signals (issue 33, point 4): a hidden session page says in its tab title and favicon
 * that the agent waits for approval, then that it finished; visible again, it says
 * nothing. Browser notifications are off until turned on from the page. Hidden is
 * emulated with the Page Visibility API (the property and its event), as the issue asks.
 * The offline model runs `run \`<command>\`` through bash, which asks by default.
 */

async function setHidden(page: Page, hidden: boolean): Promise<void> {
  await page.evaluate((value) => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (value ? "hidden" : "visible") });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => value });
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}

/** Notifications the page shows, recorded by a stand-in for the browser's (which a headless browser cannot show). */
async function recordNotifications(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const shown: { title: string; body: string }[] = [];
    Object.assign(window, { __notifications: shown });
    class Recorded {
      static permission: NotificationPermission = "default";
      static requestPermission = async (): Promise<NotificationPermission> => (Recorded.permission = "granted");
      onclick: (() => void) | null = null;
      constructor(title: string, options?: NotificationOptions) {
        shown.push({ title, body: options?.body ?? "" });
      }
      close(): void {}
    }
    Object.defineProperty(window, "Notification", { configurable: true, value: Recorded });
  });
}

const shown = (page: Page) => page.evaluate(() => (window as unknown as { __notifications: { title: string; body: string }[] }).__notifications);

test("the tab title changes on a hidden page when a question arrives, then says the turn finished; notifications only once turned on", async ({ page, seed }) => {
  await recordNotifications(page);
  const title = `Signals ${tag()}`;
  const session = await seed.session({ title });
  const view = new SessionPage(page);
  const chat = new Chat(page);
  await view.goto(session.id);
  await expect(chat.status).toHaveAttribute("data-status", "idle");
  await expect(page).toHaveTitle(`${title} · Parley`);

  // Off by default; turned on from the page (the browser's permission asked then).
  const toggle = page.getByTestId("notify-toggle");
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");

  await setHidden(page, true);
  const command = `echo signal-${tag()}`;
  await prompt(page.request, session.id, `run \`${command}\``);
  await expect(page).toHaveTitle(`(!) Waiting for approval · ${title} · Parley`);
  await expect(page.locator('head link[rel="icon"][data-signal="approval"]')).toHaveCount(1);
  await expect.poll(() => shown(page)).toEqual([{ title: "Waiting for approval", body: title }]);

  // Visible again: the title and the icon are the page's own.
  await setHidden(page, false);
  await expect(page).toHaveTitle(`${title} · Parley`);
  await expect(page.locator("head link[data-signal]")).toHaveCount(0);

  // Hidden while the answer lets the turn finish: "Finished". The question the member saw
  // before leaving the page is signalled again, but not notified again.
  await setHidden(page, true);
  await expect(page).toHaveTitle(`(!) Waiting for approval · ${title} · Parley`);
  const pending = await page.request.get(`/api/trpc/permission.pending?input=${encodeURIComponent(JSON.stringify({ sessionId: session.id }))}`);
  const requests = ((await pending.json()) as { result: { data: { id: string }[] } }).result.data;
  const [request] = requests;
  if (!request) throw new Error("no pending question");
  await reply(page.request, request.id, "once");
  await expect(page).toHaveTitle(`(✓) Finished · ${title} · Parley`);
  await expect(page.locator('head link[rel="icon"][data-signal="finished"]')).toHaveCount(1);
  await expect.poll(async () => (await shown(page)).map((n) => n.title)).toEqual(["Waiting for approval", "Finished"]);
  await setHidden(page, false);
  await expect(page).toHaveTitle(`${title} · Parley`);
});

test("without turning notifications on, a hidden page still changes its title but shows no notification", async ({ page, seed }) => {
  await recordNotifications(page);
  const title = `Quiet ${tag()}`;
  const session = await seed.session({ title });
  await new SessionPage(page).goto(session.id);
  await expect(new Chat(page).status).toHaveAttribute("data-status", "idle");
  await expect(page).toHaveTitle(`${title} · Parley`);
  await expect(page.getByTestId("notify-toggle")).toHaveAttribute("aria-pressed", "false");
  await setHidden(page, true);
  await prompt(page.request, session.id, `run \`echo quiet-${tag()}\``);
  await expect(page).toHaveTitle(`(!) Waiting for approval · ${title} · Parley`);
  // The icon is set by the same effects that would have notified.
  await expect(page.locator('head link[rel="icon"][data-signal="approval"]')).toHaveCount(1);
  expect(await shown(page)).toEqual([]);
});
