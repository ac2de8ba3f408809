import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { AppShell } from "./pages/app-shell";
import { TeamPageObject } from "./pages/auth-pages";
import { Chat } from "./pages/chat";
import { DashboardPage } from "./pages/dashboard-page";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";
import { SharePage } from "./pages/share-page";
import { person } from "./support/people";
import { seedSampleChat } from "./support/sample-chat";

/**
 * A phone: 390×844 CSS pixels with touch and a mobile viewport (the page is laid out at
 * the device width and, if something is wider, the layout viewport grows with it — which
 * is how a too-wide header used to push the sticky composer below the screen).
 */
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 };

test.use(PHONE);

async function phonePage(browser: Browser): Promise<Page> {
  const context = await browser.newContext(PHONE);
  return context.newPage();
}

/** The composer lies entirely on the screen, and the screen is the phone's (not a widened layout). */
async function expectComposerOnScreen(page: Page): Promise<void> {
  const chat = new Chat(page);
  await expect(chat.input).toBeVisible();
  const screen = await page.evaluate(() => ({ width: window.innerWidth, height: window.innerHeight }));
  expect(screen).toEqual({ width: 390, height: 844 });
  const box = await chat.composer.boundingBox();
  if (!box) throw new Error("the composer has no box");
  expect(box.y, "the composer starts on the screen").toBeGreaterThanOrEqual(0);
  expect(box.y + box.height, "the composer ends on the screen").toBeLessThanOrEqual(screen.height + 1);
  expect(box.x + box.width).toBeLessThanOrEqual(screen.width + 1);
}

test("at 390×844 no page scrolls sideways, and the chat's composer is on the screen", async ({ page, browser, seed }) => {
  test.setTimeout(120_000);
  const shell = new AppShell(page);
  const title = `Phone chat ${Date.now().toString(36)}`;
  const { session, sharePath } = await seedSampleChat(seed, title, { share: true });

  // Signed out: sign-in and sign-up.
  const visitor = await phonePage(browser);
  const visitorShell = new AppShell(visitor);
  await visitor.goto("/sign-in");
  await expect(visitor.getByTestId("sign-in-form")).toBeVisible();
  await visitorShell.expectNoHorizontalOverflow("sign-in");
  await visitor.goto("/sign-up");
  await expect(visitor.getByTestId("sign-up-form")).toBeVisible();
  await visitorShell.expectNoHorizontalOverflow("sign-up");

  // The share page, as someone with only the link.
  if (!sharePath) throw new Error("not shared");
  const viewer = new SharePage(visitor);
  await viewer.goto(sharePath);
  await expect(viewer.part("tool")).toHaveCount(2);
  await visitorShell.expectNoHorizontalOverflow("share page");

  // A member's pages.
  const list = new SessionListPage(page);
  await list.goto();
  await expect(list.row(title)).toBeVisible();
  await shell.expectNoHorizontalOverflow("session list");

  const sessionPage = new SessionPage(page);
  await sessionPage.goto(session.id);
  await expect(sessionPage.part("tool")).toHaveCount(2);
  await expect(page.getByTestId("code-block")).toBeVisible();
  await shell.expectNoHorizontalOverflow("chat");
  await expectComposerOnScreen(page);

  const dashboard = new DashboardPage(page);
  await dashboard.goto(`?q=${encodeURIComponent(title)}`);
  await expect(dashboard.rows).toHaveCount(1);
  await shell.expectNoHorizontalOverflow("dashboard");

  const team = new TeamPageObject(page);
  await team.goto();
  await shell.expectNoHorizontalOverflow("team page");
  const link = await team.invite(person("Phone").email);
  await shell.expectNoHorizontalOverflow("team page with an invitation link");

  await page.goto("/team/approvals");
  await expect(page.getByRole("heading", { name: "Approvals", level: 1 })).toBeVisible();
  await shell.expectNoHorizontalOverflow("approvals");

  await page.goto("/shares");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await shell.expectNoHorizontalOverflow("shared links");

  // The invitation, as the member who made it and as the signed-out invitee.
  await page.goto(new URL(link).pathname);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await shell.expectNoHorizontalOverflow("invitation (signed in)");
  await visitor.goto(new URL(link).pathname);
  await expect(visitor.getByRole("heading", { level: 1 })).toBeVisible();
  await visitorShell.expectNoHorizontalOverflow("invitation (signed out)");
});

test("in a long conversation on a phone the composer stays on the screen, at its bottom, while reading", async ({ page, seed }) => {
  const { session } = await seedSampleChat(seed, `Long phone chat ${Date.now().toString(36)}`, { turns: 8 });
  const sessionPage = new SessionPage(page);
  await sessionPage.goto(session.id);
  await expect(sessionPage.part("tool").first()).toBeVisible();
  await expectComposerOnScreen(page);
  // Scrolled back to the top of the conversation, the composer is still there, at the screen's bottom edge.
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
  await expectComposerOnScreen(page);
  const box = await new Chat(page).composer.boundingBox();
  expect(Math.round((box?.y ?? 0) + (box?.height ?? 0))).toBeGreaterThanOrEqual(844 - 2);
  await new AppShell(page).expectNoHorizontalOverflow("long chat");
});

test("in a new, empty session on a phone the composer sits at the bottom of the screen", async ({ page, seed }) => {
  const session = await seed.session({ title: `Empty phone chat ${Date.now().toString(36)}` });
  await new SessionPage(page).goto(session.id);
  await expectComposerOnScreen(page);
  const box = await new Chat(page).composer.boundingBox();
  expect(Math.round((box?.y ?? 0) + (box?.height ?? 0))).toBeGreaterThanOrEqual(844 - 2);
});

test("on a phone the header's links, team switcher, theme and sign-out are in a menu drawer", async ({ page, account }) => {
  const shell = new AppShell(page);
  await new SessionListPage(page).goto();
  // The wide header's controls are not shown; the menu button is.
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeHidden();
  const header = await page.locator("header").first().boundingBox();
  expect(header?.width).toBeLessThanOrEqual(390);

  const drawer = await shell.openMenu();
  for (const name of ["Sessions", "Dashboard", "Shared links", "Team"]) await expect(drawer.getByRole("link", { name, exact: true })).toBeVisible();
  await expect(drawer.getByRole("combobox", { name: "Team" })).toBeVisible();
  await expect(drawer.getByTestId("signed-in-user")).toContainText(account.name);
  await expect(drawer.getByRole("button", { name: "Sign out" })).toBeVisible();
  await expect(shell.themeOption("Dark", drawer)).toBeAttached();
  const box = await drawer.boundingBox();
  expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(391);

  // Escape closes it; a link in it navigates and closes it.
  await page.keyboard.press("Escape");
  await expect(shell.drawer).toBeHidden();
  await shell.openMenu();
  await shell.drawer.getByRole("link", { name: "Team", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/team");
  await expect(shell.drawer).toBeHidden();
  await expect(shell.menuButton).toBeFocused();
});

test.describe("the dashboard", () => {
  test("at 390 px each session is a card: nothing is cut off and the page does not scroll sideways", async ({ page, seed }) => {
    const title = `Card ${Date.now().toString(36)}`;
    await seedSampleChat(seed, title, { share: true });
    const dashboard = new DashboardPage(page);
    await dashboard.goto(`?q=${encodeURIComponent(title)}`);
    const row = dashboard.row(title);
    await expect(row).toBeVisible();
    await new AppShell(page).expectNoHorizontalOverflow("dashboard");
    // Every cell lies within the card and the screen's width (nothing cut off at the side).
    const card = await page.getByTestId("dashboard-table").locator("xpath=..").boundingBox();
    for (const cell of [row.getByTestId("row-cost"), row.getByTestId("row-lines"), row.getByTestId("row-share"), dashboard.totals.getByTestId("totals-lines")]) {
      await expect(cell).toBeVisible();
      const box = await cell.boundingBox();
      if (!box || !card) throw new Error("no box");
      expect(box.width).toBeGreaterThan(0);
      expect(box.x).toBeGreaterThanOrEqual(card.x);
      expect(box.x + box.width).toBeLessThanOrEqual(Math.min(card.x + card.width, 390) + 0.5);
    }
  });

  test.describe("at 1280 px", () => {
    test.use({ viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 });

    test("the table is not clipped: every column, Lines and Share included, is on the screen", async ({ page, seed }) => {
      const title = `Wide ${Date.now().toString(36)}`;
      await seedSampleChat(seed, title, { share: true });
      const dashboard = new DashboardPage(page);
      await dashboard.goto(`?q=${encodeURIComponent(title)}`);
      await expect(dashboard.row(title)).toBeVisible();
      const table = page.getByTestId("dashboard-table");
      const scroll = await table.evaluate((element) => {
        const wrapper = element.parentElement;
        return { scrollWidth: wrapper?.scrollWidth ?? 0, clientWidth: wrapper?.clientWidth ?? 0 };
      });
      expect(scroll.scrollWidth, "the table needs no sideways scroll").toBeLessThanOrEqual(scroll.clientWidth);
      for (const name of ["Session", "Author", "Project", "Status", "Updated", "Cost", "Tokens", "Lines", "Share"]) {
        await expect(table.getByRole("columnheader", { name, exact: true })).toBeInViewport({ ratio: 1 });
      }
      await expect(dashboard.row(title).getByTestId("row-share")).toBeInViewport({ ratio: 1 });
      await new AppShell(page).expectNoHorizontalOverflow("dashboard at 1280");
    });
  });
});
