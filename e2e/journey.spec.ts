import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "./fixtures";
import { AuthPages, TeamPageObject } from "./pages/auth-pages";
import { Chat } from "./pages/chat";
import { SessionListPage } from "./pages/session-list-page";
import { ShareControls, SharePage } from "./pages/share-page";
import { E2E_PASSWORD } from "./support/auth";
import { E2E_DATA_DIR } from "./support/seed";

/**
 * The whole path of a new team, as a person would take it (issue 5's acceptance): sign up
 * → a team of one's own → register a project → start a session in it → the offline agent
 * writes a file in the session's workspace → share → someone with only the link watches the reply stream live
 * → revoke → the viewer is told at once.
 */
test("sign up, add a project, run the agent in it, share it live, revoke", async ({ browser, seed }) => {
  test.setTimeout(120_000);
  const tag = `${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;

  // Sign up in a browser of one's own.
  const page = await (await browser.newContext()).newPage();
  await page.goto("/sign-up");
  const auth = new AuthPages(page);
  await auth.fillSignUp({ name: `Journey ${tag}`, email: `journey-${tag}@e2e.parley.test`, password: E2E_PASSWORD });
  await page.waitForURL((url) => url.pathname === "/");
  expect(await auth.activeTeam()).toBe(`Journey ${tag}'s team`);

  // Register a project directory under the projects root.
  const folder = `journey-${tag}`;
  const directory = path.resolve(E2E_DATA_DIR, "projects", folder);
  mkdirSync(directory, { recursive: true });
  const team = new TeamPageObject(page);
  await team.goto();
  await team.addListedProject(folder);

  // Start a session in it; the agent writes a file.
  await new SessionListPage(page).createSessionIn(folder);
  const chat = new Chat(page);
  await chat.ask(`write plan.md: the plan of ${tag}`);
  await chat.waitIdle();
  await expect(page.locator('[data-part-type="tool"][data-tool-status="completed"]').filter({ hasText: "plan.md" })).toHaveCount(1);
  // In the session's own workspace (on its own branch of the project), not in the registered folder.
  const sessionId = new URL(page.url()).pathname.split("/").pop() ?? "";
  const written = path.join(await seed.directory(sessionId), "plan.md");
  expect(existsSync(written)).toBe(true);
  expect(readFileSync(written, "utf8")).toContain(`the plan of ${tag}`);
  expect(existsSync(path.join(directory, "plan.md"))).toBe(false);

  // Share it and open the link with no account.
  const controls = new ShareControls(page);
  const link = await controls.share();
  const viewerPage = await (await browser.newContext()).newPage();
  const viewer = new SharePage(viewerPage);
  await viewer.goto(link);
  await expect(viewerPage.getByText(`the plan of ${tag}`).first()).toBeVisible();

  // A slow reply streams into the viewer while it is being written.
  await chat.ask("Stream slowly and write a long answer");
  const viewerTexts = viewer.part("text");
  const before = await viewerTexts.count();
  await expect.poll(() => viewerTexts.count()).toBeGreaterThan(before);
  const growing = viewerTexts.last();
  const first = (await growing.textContent()) ?? "";
  await expect.poll(async () => ((await growing.textContent()) ?? "").length, { timeout: 20_000 }).toBeGreaterThan(first.length);
  await expect(chat.status).not.toHaveAttribute("data-status", "idle");

  // Revoking tells the viewer at once.
  await controls.unshare();
  await expect(viewer.revoked).toBeVisible({ timeout: 2_000 });
  await chat.stop.click();
  await chat.waitIdle();
});
