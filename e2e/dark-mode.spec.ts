import type { Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { AppShell, contrastRatio } from "./pages/app-shell";
import { Chat } from "./pages/chat";
import { DashboardPage } from "./pages/dashboard-page";
import { SessionPage } from "./pages/session-page";
import { SharePage } from "./pages/share-page";
import { seedSampleChat } from "./support/sample-chat";

/**
 * Dark mode: "system" (the default) follows the device, and a choice in the header's theme
 * switch is kept in a cookie, so the server renders the chosen theme into the HTML (no
 * flash of the other one on load).
 */

/** `text` reads on `surface`: at least `min`:1 (WCAG AA is 4.5 for small text). */
async function expectReadable(shell: AppShell, text: Locator, surface: Locator, min = 4.5): Promise<void> {
  const ratio = contrastRatio(await shell.luminance(text, "color"), await shell.luminance(surface, "background-color"));
  expect(ratio, `contrast of ${text.toString()} on ${surface.toString()}`).toBeGreaterThanOrEqual(min);
}

/** A dark page: a near-black background with light text. */
async function expectDarkPage(page: Page): Promise<void> {
  const shell = new AppShell(page);
  const body = page.locator("body");
  expect(await shell.luminance(body, "background-color")).toBeLessThan(0.02);
  expect(await shell.luminance(body, "color")).toBeGreaterThan(0.7);
  await expect(page.locator("html")).toHaveCSS("color-scheme", "dark");
}

test("with a dark device, the chat, the dashboard and the share page are dark and readable", async ({ page, browser, seed }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  const shell = new AppShell(page);
  const title = `Dark ${Date.now().toString(36)}`;
  const { session, sharePath } = await seedSampleChat(seed, title, { share: true });

  // The chat: the page, a tool card, the composer; the code block stays dark with light code.
  const sessionPage = new SessionPage(page);
  await sessionPage.goto(session.id);
  await expect(page.locator("html")).toHaveAttribute("data-theme", "system");
  await expectDarkPage(page);
  const tool = sessionPage.part("tool").first();
  await expect(tool).toBeVisible();
  const composerForm = new Chat(page).composer.getByRole("form", { name: "Send a message" });
  expect(await shell.luminance(composerForm, "background-color")).toBeLessThan(0.05);
  await expectReadable(shell, page.getByTestId("session-title"), page.locator("body"), 7);
  await expectReadable(shell, sessionPage.part("text").last().locator("p").first(), page.locator("body"), 7);
  const code = page.getByTestId("code-block");
  expect(await shell.luminance(code, "background-color")).toBeLessThan(0.05);
  await expectReadable(shell, code.locator("pre"), code, 7);
  await expectReadable(shell, code.getByTestId("code-language"), code);

  // The dashboard: dark table, readable rows and muted headers.
  const dashboard = new DashboardPage(page);
  await dashboard.goto(`?q=${encodeURIComponent(title)}`);
  await expectDarkPage(page);
  const table = page.getByTestId("dashboard-table");
  const card = table.locator("xpath=..");
  expect(await shell.luminance(card, "background-color")).toBeLessThan(0.05);
  await expectReadable(shell, dashboard.row(title).getByRole("link", { name: title }), card, 7);
  await expectReadable(shell, table.getByRole("columnheader", { name: "Session" }), card);
  await expectReadable(shell, page.getByTestId("dashboard-shown"), page.locator("body"));

  // The share page, for someone with only the link and a dark device.
  if (!sharePath) throw new Error("not shared");
  const viewerPage = await (await browser.newContext({ colorScheme: "dark" })).newPage();
  const viewer = new SharePage(viewerPage);
  await viewer.goto(sharePath);
  await expectDarkPage(viewerPage);
  await expectReadable(new AppShell(viewerPage), viewer.title, viewerPage.locator("body"), 7);
  await expect(viewer.part("tool")).toHaveCount(2);
});

test("the theme chosen in the header is kept and rendered by the server, over the device's preference", async ({ page, seed }) => {
  const shell = new AppShell(page);
  const session = await seed.session({ title: `Theme ${Date.now().toString(36)}` });
  const sessionPage = new SessionPage(page);

  // A light device: the page is light until Dark is chosen, then dark at once.
  await page.emulateMedia({ colorScheme: "light" });
  await sessionPage.goto(session.id);
  expect(await shell.luminance(page.locator("body"), "background-color")).toBeGreaterThan(0.8);
  await expect(shell.themeOption("System")).toBeChecked();
  await shell.chooseTheme("Dark");
  await expectDarkPage(page);

  // Kept across pages and reloads: the HTML itself carries the theme (no light flash first).
  const html = await (await page.request.get(`/sessions/${session.id}`)).text();
  expect(html).toMatch(/<html[^>]*data-theme="dark"/);
  await page.reload();
  await expect(shell.themeOption("Dark")).toBeChecked();
  await expectDarkPage(page);

  // Light wins over a dark device; System follows the device again.
  await page.emulateMedia({ colorScheme: "dark" });
  await shell.chooseTheme("Light");
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  expect(await shell.luminance(page.locator("body"), "background-color")).toBeGreaterThan(0.8);
  await shell.chooseTheme("System");
  await expectDarkPage(page);
  await page.emulateMedia({ colorScheme: "light" });
  expect(await shell.luminance(page.locator("body"), "background-color")).toBeGreaterThan(0.8);
});
