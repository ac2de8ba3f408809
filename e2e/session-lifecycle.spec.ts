import { expect, test } from "./fixtures";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";

test("create, rename, fork, archive and delete a session through the UI", async ({ page }) => {
  const title = `Lifecycle ${Date.now().toString(36)}`;
  const list = new SessionListPage(page);
  const view = new SessionPage(page);

  await list.goto();
  const id = await list.createSession();
  // Until a generated title arrives: a readable date, not an ISO timestamp.
  await expect(view.title).toHaveText(/^New session - [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} UTC$/);

  await view.rename(title);
  await page.reload();
  await expect(view.title).toHaveText(title);

  const forkId = await view.fork();
  expect(forkId).not.toBe(id);
  await expect(view.title).toHaveText(`${title} (fork #1)`);

  // Both show in the list; search narrows to them.
  await list.goto();
  await list.search.fill(title);
  await expect(list.rows).toHaveCount(2);
  await expect(list.row(title)).toBeVisible();
  await expect(list.row(`${title} (fork #1)`)).toBeVisible();

  // Archive the original: it leaves the active list and appears under Archived.
  await list.row(title).getByRole("link", { name: title, exact: true }).click();
  await expect(view.title).toHaveText(title);
  await view.archive();
  await list.goto();
  await list.search.fill(title);
  await expect(list.rows).toHaveCount(1);
  await expect(list.row(`${title} (fork #1)`)).toBeVisible();
  await list.showArchived();
  await expect(list.row(title)).toBeVisible();
  await expect(list.row(title)).toContainText("Archived");

  // Delete it: confirmed in a dialog, then back on the list, and gone for good.
  await list.row(title).getByRole("link", { name: title, exact: true }).click();
  await view.delete();
  await list.showArchived();
  await list.search.fill(title);
  await expect(list.rows).toHaveCount(0);
  await page.goto(`/sessions/${id}`);
  await expect(page.getByRole("heading", { name: "Session not found" })).toBeVisible();

  // The fork is independent and still there; delete it too (cancelling once first).
  await view.goto(forkId);
  await view.openDetails();
  await view.actions.getByRole("button", { name: "Delete" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("dialog")).toBeHidden();
  await expect(view.title).toHaveText(`${title} (fork #1)`);
  await view.delete();
  await list.search.fill(title);
  await expect(list.rows).toHaveCount(0);
});

test("session list shows cost, tokens and the parent marker; search filters by title", async ({ page, seed }) => {
  const tag = Date.now().toString(36);
  const parent = await seed.session({ title: `Parent ${tag}` });
  const child = await seed.session({ title: `Child ${tag}`, parentId: parent.id });
  await seed.db.session.update({ where: { id: parent.id }, data: { cost: 1.25, tokensInput: 12000, tokensOutput: 3400 } });

  const list = new SessionListPage(page);
  await list.goto();
  await list.search.fill(tag);
  await expect(list.rows).toHaveCount(2);
  const parentRow = list.row(parent.title);
  await expect(parentRow).toContainText("$1.25");
  await expect(parentRow).toContainText("15.4K tokens");
  await expect(parentRow.getByTestId("parent-marker")).toHaveCount(0);
  await expect(list.row(child.title).getByTestId("parent-marker")).toHaveText(`Child of ${parent.title}`);

  await list.search.fill(`Child ${tag}`);
  await expect(list.rows).toHaveCount(1);

  // The child's page links back to its parent, and the parent lists its child.
  await list.row(child.title).getByRole("link", { name: child.title }).click();
  const view = new SessionPage(page);
  await expect(view.title).toHaveText(child.title);
  await page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: parent.title }).click();
  await expect(view.title).toHaveText(parent.title);
  await expect(page.getByTestId("children-list").getByRole("link", { name: child.title })).toBeVisible();
});

test("a session link from before the 64-bit ids (the old 12-hex form of its id) still opens the session", async ({ page }) => {
  const title = `Old link ${Date.now().toString(36)}`;
  const list = new SessionListPage(page);
  const view = new SessionPage(page);
  await list.goto();
  const id = await list.createSession();
  await view.rename(title);
  // The form the migration rewrote: 48 bits of (ms × 0x1000 + counter), inverted for a session.
  const value = (1n << 64n) - 1n - BigInt(`0x${id.slice(4, 20)}`);
  const legacy = `ses_${((1n << 48n) - 1n - (value % (1n << 48n))).toString(16).padStart(12, "0")}${id.slice(20)}`;
  await page.goto(`/sessions/${legacy}`);
  await page.waitForURL(`**/sessions/${id}`);
  await expect(view.title).toHaveText(title);
});
