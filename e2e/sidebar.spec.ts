import type { Page } from "@playwright/test";
import { Session } from "../server/session";
import * as SessionStatus from "../server/session/status";
import { expect, test } from "./fixtures";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";
import { SessionSidebar } from "./pages/session-sidebar";
import { prompt } from "./support/api";
import type { Seeder } from "./support/seed";

/**
 * Issue 33, point 2: the session sidebar — the team's recent sessions by project, children
 * nested under their parent (never rows of their own), status badges (working, waiting for
 * approval, failed), each root's branch, unread markers, live from the team's stream; a
 * collapsible column on desktop (remembered), a drawer on a phone. And the list page shows
 * root sessions only, each with its project.
 */

const tag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** A root with a child, and a root whose last reply failed. */
async function tree(seed: Seeder) {
  const t = tag();
  const root = await seed.session({ title: `Sidebar root ${t}` });
  const child = await seed.session({ title: `Sidebar child ${t}`, parentId: root.id });
  const failed = await seed.session({ title: `Sidebar failed ${t}` });
  const asked = await seed.userMessage(failed.id, [{ type: "text", text: "Do it" }]);
  await seed.assistantMessage(failed.id, asked.id, [], { error: { name: "APIError", message: "Bad gateway", isRetryable: false } });
  await seed.flush();
  return { root, child, failed };
}

test.describe("desktop (1280×800)", () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("lists sessions by project with children nested, branch and badges, live; navigates; collapses and remembers it", async ({ page, seed }) => {
    const { root, child, failed } = await tree(seed);
    const sidebar = new SessionSidebar(page);
    const view = new SessionPage(page);
    await view.goto(root.id);
    const column = sidebar.column;
    await expect(column).toBeVisible();

    // By project; the child is nested under its parent, not a root of its own.
    const project = column.locator(`[data-testid="sidebar-project"][data-project-id="${seed.projectId}"]`);
    await expect(project.getByRole("heading", { level: 3 })).toHaveText(/project/i);
    await expect(sidebar.item(sidebar.item(column, root.id).getByTestId("sidebar-children"), child.id)).toBeVisible();
    await expect(sidebar.roots(column).and(page.locator(`[data-session-id="${child.id}"]`))).toHaveCount(0);
    await expect(sidebar.roots(column).and(page.locator(`[data-session-id="${root.id}"]`))).toHaveCount(1);
    // The open session is marked; a root shows its branch; a failed reply shows.
    await expect(sidebar.link(column, root.id)).toHaveAttribute("aria-current", "page");
    await expect(sidebar.link(column, root.id).getByTestId("sidebar-branch")).toHaveText(/^parley\//);
    await expect(sidebar.badge(column, failed.id)).toHaveAttribute("data-state", "failed");
    await expect(sidebar.badge(column, root.id)).toHaveCount(0);
    // The conversation is not covered: the page's content starts right of the column.
    const columnBox = await column.boundingBox();
    const titleBox = await view.title.boundingBox();
    expect(titleBox && columnBox && titleBox.x >= columnBox.x + columnBox.width).toBe(true);

    // Live: a new session appears; one that works shows it; one asking a question says so.
    const live = await seed.session({ title: `Sidebar live ${tag()}` });
    await seed.flush();
    await expect(sidebar.item(column, live.id)).toBeVisible();
    await SessionStatus.set(seed.ctx, seed.ctx.actor.teamId, live.id, { type: "busy" });
    await seed.flush();
    await expect(sidebar.badge(column, live.id)).toHaveAttribute("data-state", "working");
    await SessionStatus.set(seed.ctx, seed.ctx.actor.teamId, live.id, { type: "idle" });
    await seed.flush();
    await expect(sidebar.badge(column, live.id)).toHaveCount(0);
    const asking = await seed.session({ title: `Sidebar asking ${tag()}` });
    await prompt(page.request, asking.id, `run \`echo sidebar-${tag()}\``);
    await expect(sidebar.badge(column, asking.id)).toHaveAttribute("data-state", "waiting");

    // Navigation: the child opens from the sidebar, which stays.
    await sidebar.link(column, child.id).click();
    await expect(page).toHaveURL(new RegExp(`/sessions/${child.id}$`));
    await expect(view.title).toHaveText(child.title);
    await expect(sidebar.link(column, child.id)).toHaveAttribute("aria-current", "page");

    // Collapsed, and still collapsed after a reload; shown again.
    await sidebar.hide.click();
    await expect(column).toBeHidden();
    await expect(sidebar.show).toBeVisible();
    await page.reload();
    await expect(view.title).toHaveText(child.title);
    await expect(sidebar.show).toBeVisible();
    await expect(column).toBeHidden();
    await sidebar.show.click();
    await expect(column).toBeVisible();
  });

  test("marks a session with activity since the member last opened it, until they open it", async ({ page, seed }) => {
    const { root, failed } = await tree(seed);
    const sidebar = new SessionSidebar(page);
    const view = new SessionPage(page);
    await view.goto(failed.id);
    await view.goto(root.id);
    const column = sidebar.column;
    await expect(sidebar.item(column, failed.id)).toBeVisible();
    await expect(sidebar.item(column, failed.id).getByTestId("sidebar-unread")).toHaveCount(0);

    // Someone renames it: activity the member has not seen.
    await Session.update(seed.ctx, failed.id, { title: `${failed.title} (renamed)` });
    await seed.flush();
    await expect(sidebar.item(column, failed.id).locator(":scope > a").getByTestId("sidebar-unread")).toBeVisible();
    await expect(sidebar.item(column, root.id).locator(":scope > a").getByTestId("sidebar-unread")).toHaveCount(0);

    await sidebar.link(column, failed.id).click();
    await expect(view.title).toHaveText(`${failed.title} (renamed)`);
    await sidebar.link(column, root.id).click();
    await expect(view.title).toHaveText(root.title);
    await expect(sidebar.item(column, failed.id).locator(":scope > a").getByTestId("sidebar-unread")).toHaveCount(0);
  });
});

test.describe("phone (390×844)", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 });

  test("the sidebar is a drawer: children nested, badges, and choosing a session opens it and closes the drawer", async ({ page, seed }) => {
    const { root, child, failed } = await tree(seed);
    const sidebar = new SessionSidebar(page);
    const view = new SessionPage(page);
    await view.goto(root.id);
    await expect(sidebar.column).toBeHidden();
    await expect(sidebar.drawer).toBeHidden();
    await sidebar.drawerButton.click();
    const drawer = sidebar.drawer;
    await expect(drawer).toBeVisible();
    await expect(sidebar.item(sidebar.item(drawer, root.id).getByTestId("sidebar-children"), child.id)).toBeVisible();
    await expect(sidebar.roots(drawer).and(page.locator(`[data-session-id="${child.id}"]`))).toHaveCount(0);
    await expect(sidebar.badge(drawer, failed.id)).toHaveAttribute("data-state", "failed");
    await expectWithinScreen(page, drawer);

    await sidebar.link(drawer, child.id).click();
    await expect(page).toHaveURL(new RegExp(`/sessions/${child.id}$`));
    await expect(view.title).toHaveText(child.title);
    await expect(drawer).toBeHidden();
    // Escape closes it too.
    await sidebar.drawerButton.click();
    await expect(drawer).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
  });
});

async function expectWithinScreen(page: Page, drawer: ReturnType<Page["locator"]>): Promise<void> {
  const box = await drawer.boundingBox();
  const width = await page.evaluate(() => window.innerWidth);
  expect(box && box.x >= 0 && box.x + box.width <= width + 1).toBe(true);
}

test("the session list shows root sessions only, each with its project and its number of children", async ({ page, seed }) => {
  const { root, child } = await tree(seed);
  const list = new SessionListPage(page);
  await list.goto();
  const row = list.row(root.title);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("session-project")).toHaveText("project");
  await expect(row.getByTestId("children-count")).toHaveText("1 child session");
  await expect(list.row(child.title)).toHaveCount(0);
});
