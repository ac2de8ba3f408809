import { readFileSync } from "node:fs";
import path from "node:path";
import type { Download, Locator, Page } from "@playwright/test";
import { Session } from "../server/session";
import { type GitServer, createBareRepo, git, startGitServer } from "../test/git-server";
import { expect, test } from "./fixtures";
import { Chat } from "./pages/chat";
import { ProjectSourcesSection } from "./pages/team-page";
import { inviteMember } from "./support/invite";
import { tag } from "./support/people";

/**
 * Each session on its own branch, end to end (issue 31, acceptance 5): an admin adds a
 * project from a repository served over smart HTTP with basic auth (a token secret); two
 * members each start a session in it and have the agent write the same file; each sees only
 * their own content in the Changes panel; one commits (the drafted message) and pushes —
 * the bare repository then has the branch, its content and the member as author; the other
 * reverts their turn and the first's work stays; the dashboard shows both branches.
 */

let server: GitServer;
const token = `tok-${tag()}-${tag()}`;

test.beforeAll(async () => {
  server = await startGitServer({ users: { robot: token } });
  createBareRepo(server.root, "shop", { head: "trunk", files: { "src/app.ts": "export const who = 'base';\n", "README.md": "# shop\n" }, branches: { "release-1": { "CHANGELOG.md": "1\n" } } });
});

test.afterAll(async () => {
  await server?.close();
});

/** Starts a session in `project` from the session list and returns its id; `branch`: the branch the picker shows preselected. */
async function startSession(page: Page, project: string, branch?: string): Promise<string> {
  await page.goto("/");
  await page.getByTestId("project-picker").selectOption({ label: project });
  // A git project: its default branch is preselected.
  if (branch) await expect(page.getByTestId("branch-picker")).toHaveValue(branch);
  await page.getByTestId("new-session").click();
  await page.waitForURL((url) => /\/sessions\/ses_/.test(url.pathname));
  return new URL(page.url()).pathname.split("/").pop() ?? "";
}

/** Asks the agent for `text`, allowing a permission card if one asks, and waits for it to finish. */
async function turn(chat: Chat, text: string): Promise<void> {
  await chat.ask(text);
  const card = chat.page.getByTestId("permission-request");
  const done = chat.lastAssistant.and(chat.page.locator('[data-state="done"]'));
  await expect(card.or(done).first()).toBeVisible({ timeout: 30_000 });
  if (await card.isVisible()) await card.getByRole("button", { name: "Allow once" }).click();
  await expect(chat.lastAssistant).toHaveAttribute("data-state", "done", { timeout: 30_000 });
  await chat.waitIdle();
}

/** Opens the Changes panel and its file `file`; returns the panel. */
async function openChanges(page: Page, file: string): Promise<Locator> {
  await page.getByTestId("changes-button").click();
  const panel = page.getByTestId("changes-panel");
  await expect(panel).toBeVisible();
  const row = panel.locator(`[data-testid="changes-file"][data-file="${file}"]`);
  await row.getByRole("button").click();
  await expect(row.getByTestId("changes-file-diff")).toBeVisible();
  return panel;
}

test("two members work on one repository, each on a branch of their own: commit and push one, revert the other", async ({ page, browser, seed }) => {
  test.setTimeout(180_000);
  const secret = `git-${tag()}`;
  const folder = `shop-${tag()}`;
  const teamId = seed.ctx.actor.teamId;
  try {
    // The admin: a token secret, then the project from the repository URL.
    await page.goto("/team");
    const sources = new ProjectSourcesSection(page);
    await sources.saveGitToken(secret, token);
    const form = await sources.fillClone({ url: server.httpUrl("shop"), secret, user: "robot", folder, pullRequestUrl: "https://forge.example/org/shop/compare/{branch}?expand=1" });
    await form.getByRole("button", { name: "Clone" }).click();
    const project = page.locator(`[data-testid="project"][data-name="${folder}"]`);
    await expect(project.getByTestId("project-git")).toContainText("default branch trunk", { timeout: 30_000 });
    // Owners and admins see its disk use and its live workspaces against the cap.
    await expect(project.getByTestId("project-usage")).toContainText(/of \d+ live workspaces/);

    // Two members, each in a browser of their own, each with a session of the project.
    const alice = await inviteMember(browser, page);
    const bob = await inviteMember(browser, page);
    const aliceId = await startSession(alice.page, folder, "trunk");
    const bobId = await startSession(bob.page, folder, "trunk");
    expect(aliceId).not.toBe(bobId);

    const aliceChat = new Chat(alice.page);
    await turn(aliceChat, "write src/app.ts: export const who = 'alice';");
    const bobChat = new Chat(bob.page);
    await turn(bobChat, "write src/app.ts: export const who = 'bob';");

    // Each sees only their own content.
    const alicePanel = await openChanges(alice.page, "src/app.ts");
    // The chat stays usable beside the panel: on a wide screen the page moves aside for it.
    const composerBox = await alice.page.getByTestId("composer").boundingBox();
    const panelBox = await alicePanel.boundingBox();
    expect((composerBox?.x ?? Infinity) + (composerBox?.width ?? 0)).toBeLessThanOrEqual(panelBox?.x ?? 0);
    await expect(alicePanel.getByTestId("changes-files")).toContainText("export const who = 'alice';");
    await expect(alicePanel.getByTestId("changes-files")).not.toContainText("bob");
    await expect(alicePanel.getByTestId("changes-state")).toHaveAttribute("data-state", "uncommitted");
    const bobPanel = await openChanges(bob.page, "src/app.ts");
    await expect(bobPanel.getByTestId("changes-files")).toContainText("export const who = 'bob';");
    await expect(bobPanel.getByTestId("changes-files")).not.toContainText("alice");
    const aliceBranch = (await alicePanel.getByTestId("changes-branch").textContent()) ?? "";
    const bobBranch = (await bobPanel.getByTestId("changes-branch").textContent()) ?? "";
    expect(aliceBranch).toMatch(/^parley\//);
    expect(bobBranch).toMatch(/^parley\//);
    expect(aliceBranch).not.toBe(bobBranch);

    // Alice commits with the drafted message, then pushes.
    await alicePanel.getByTestId("changes-commit").click();
    const message = alicePanel.getByTestId("commit-message");
    await expect(message).toBeEnabled({ timeout: 30_000 });
    await expect(message).not.toHaveValue("");
    const drafted = (await message.inputValue()).trim();
    await alicePanel.getByTestId("commit-confirm").click();
    await expect(alicePanel.getByTestId("changes-commits")).toHaveText("1");
    await expect(alicePanel.getByTestId("changes-state")).toHaveAttribute("data-state", "unpushed");
    await alicePanel.getByTestId("changes-push").click();
    await expect(alicePanel.getByTestId("changes-pushed")).toContainText(aliceBranch, { timeout: 30_000 });
    await expect(alicePanel.getByTestId("changes-state")).toHaveAttribute("data-state", "pushed");
    await expect(alicePanel.getByTestId("pull-request-link")).toHaveAttribute("href", `https://forge.example/org/shop/compare/${aliceBranch}?expand=1`);
    // PARLEY_CHANGES_SCREENSHOT=<path>: the docs' picture of the panel, from this flow.
    if (process.env.PARLEY_CHANGES_SCREENSHOT) await alice.page.screenshot({ path: process.env.PARLEY_CHANGES_SCREENSHOT });

    // The bare repository has the branch, Alice's content, her name as author and the drafted message.
    const bare = `${server.root}/shop.git`;
    expect(git(bare, "for-each-ref", "--format=%(refname:short)", `refs/heads/${aliceBranch}`).trim()).toBe(aliceBranch);
    expect(git(bare, "show", `${aliceBranch}:src/app.ts`)).toBe("export const who = 'alice';\n");
    const aliceUser = await seed.db.user.findUniqueOrThrow({ where: { email: alice.email }, select: { name: true } });
    expect(git(bare, "log", "-1", "--format=%an <%ae>", aliceBranch).trim()).toBe(`${aliceUser.name} <${alice.email}>`);
    expect(git(bare, "log", "-1", "--format=%B", aliceBranch).trim()).toBe(drafted);
    expect(git(bare, "rev-list", "--count", `trunk..${aliceBranch}`).trim()).toBe("1");
    // Bob's uncommitted work went nowhere.
    expect(git(bare, "for-each-ref", "--format=%(refname:short)", `refs/heads/${bobBranch}`).trim()).toBe("");
    expect(git(bare, "show", "trunk:src/app.ts")).toBe("export const who = 'base';\n");

    // Bob reverts his turn: his change goes, Alice's stays.
    await bobPanel.getByRole("button", { name: "Close the changes" }).click();
    await bobChat.user("export const who = 'bob'").getByTestId("revert-message").click();
    await expect(bob.page.getByTestId("revert-banner")).toBeVisible();
    await bob.page.getByTestId("changes-button").click();
    await expect(bob.page.getByTestId("changes-panel").getByTestId("changes-empty")).toBeVisible();
    await alice.page.reload();
    const again = await openChanges(alice.page, "src/app.ts");
    await expect(again.getByTestId("changes-files")).toContainText("export const who = 'alice';");
    await expect(again.getByTestId("changes-state")).toHaveAttribute("data-state", "pushed");

    // The dashboard shows both branches and where each stands.
    await page.goto("/dashboard");
    const aliceRow = page.locator(`[data-testid="dashboard-row"][data-session-id="${aliceId}"]`).getByTestId("workspace-badge");
    const bobRow = page.locator(`[data-testid="dashboard-row"][data-session-id="${bobId}"]`).getByTestId("workspace-badge");
    await expect(aliceRow).toHaveAttribute("data-branch", aliceBranch);
    await expect(aliceRow).toHaveAttribute("data-state", "pushed");
    await expect(bobRow).toHaveAttribute("data-branch", bobBranch);
    await expect(bobRow).toHaveAttribute("data-state", /^(none|uncommitted)$/);
  } finally {
    // The worker's team is shared with other specs, which expect its one project.
    const sessions = await seed.db.session.findMany({ where: { teamId, parentId: null, project: { directory: { endsWith: folder } } }, select: { id: true } });
    for (const session of sessions) await Session.remove(seed.ctx, session.id);
    await seed.db.project.deleteMany({ where: { teamId, id: { not: seed.projectId }, directory: { endsWith: folder } } });
    await seed.db.teamSecret.deleteMany({ where: { teamId, name: secret } });
  }
});

/** Clicks `button` and returns the file the page hands over: its name and text. */
async function downloaded(page: Page, button: Locator): Promise<{ name: string; text: string }> {
  const download: Promise<Download> = page.waitForEvent("download");
  await button.click();
  const file = await download;
  return { name: file.suggestedFilename(), text: readFileSync(await file.path(), "utf8") };
}

test("without a remote: download the diff and the patches, merge into main, and an update from main that would conflict changes nothing", async ({ page, seed }) => {
  test.setTimeout(150_000);
  const folder = `notes-${tag()}`;
  const teamId = seed.ctx.actor.teamId;
  try {
    await page.goto("/team");
    await page.getByRole("button", { name: "Create empty" }).click();
    const form = page.getByTestId("project-empty-form");
    await form.getByLabel("Folder").fill(folder);
    await form.getByRole("button", { name: "Create" }).click();
    await expect(page.locator(`[data-testid="project"][data-name="${folder}"]`).getByTestId("project-git")).toContainText("default branch main");
    const project = await seed.db.project.findFirstOrThrow({ where: { teamId, name: folder }, select: { directory: true } });

    // Session A writes a file: the diff downloads as one file; committed, the patch series does too.
    const first = await startSession(page, folder);
    const chat = new Chat(page);
    // Opened while the agent works, the panel says so and offers nothing to do; once the
    // agent is idle it reads the changes again by itself.
    await chat.ask("Stream slowly and write notes.md: from A");
    await expect(chat.stop).toBeVisible();
    await page.getByTestId("changes-button").click();
    const panel = page.getByTestId("changes-panel");
    await expect(panel.getByTestId("changes-busy").first()).toContainText("The agent is working");
    await expect(panel.getByTestId("changes-commit")).toBeDisabled();
    await expect(chat.lastAssistant).toHaveAttribute("data-state", "done", { timeout: 60_000 });
    await chat.waitIdle();
    await expect(panel.getByTestId("changes-busy")).toHaveCount(0);
    const written = panel.locator('[data-testid="changes-file"][data-file="notes.md"]');
    await written.getByRole("button").click();
    await expect(written.getByTestId("changes-file-diff")).toContainText("from A");
    await expect(panel.getByTestId("changes-push")).toHaveCount(0);
    const diff = await downloaded(page, panel.getByTestId("changes-download-diff"));
    expect(diff.name).toMatch(/\.diff$/);
    expect(diff.text).toContain("+from A");
    await expect(panel.getByTestId("changes-download-series")).toBeDisabled();
    await panel.getByTestId("changes-commit").click();
    await expect(panel.getByTestId("commit-message")).not.toHaveValue("", { timeout: 30_000 });
    await panel.getByTestId("commit-message").fill("Add the notes");
    await panel.getByTestId("commit-confirm").click();
    await expect(panel.getByTestId("changes-commits")).toHaveText("1");
    const series = await downloaded(page, panel.getByTestId("changes-download-series"));
    expect(series.name).toMatch(/\.patch$/);
    expect(series.text).toContain("Subject: [PATCH] Add the notes");
    expect(series.text).toContain("+from A");

    // Merge into main: the project's main branch has A's file.
    await panel.getByTestId("changes-merge").click();
    await expect(panel.getByTestId("changes-message")).toHaveText("Merged into main.");
    await expect(panel.getByTestId("changes-state")).toHaveAttribute("data-state", "merged");
    expect(git(project.directory, "show", "main:notes.md")).toBe("from A\n");

    // Session B starts from main (A's file in it), changes the same line and merges too.
    await startSession(page, folder);
    await turn(chat, "write notes.md: from B");
    const other = await openChanges(page, "notes.md");
    await other.getByTestId("changes-commit").click();
    await expect(other.getByTestId("commit-message")).not.toHaveValue("", { timeout: 30_000 });
    await other.getByTestId("commit-confirm").click();
    await expect(other.getByTestId("changes-commits")).toHaveText("1");
    await other.getByTestId("changes-merge").click();
    await expect(other.getByTestId("changes-message")).toHaveText("Merged into main.");
    expect(git(project.directory, "show", "main:notes.md")).toBe("from B\n");

    // A changes the line again: bringing main's new commit in would conflict, so nothing changes.
    await page.goto(`/sessions/${first}`);
    await turn(chat, "write notes.md: from A again");
    const again = await openChanges(page, "notes.md");
    await again.getByTestId("changes-update").click();
    const message = again.getByTestId("changes-message");
    await expect(message).toContainText("Updating would conflict in 1 file: nothing was changed.");
    await expect(message.getByTestId("conflict-files")).toHaveText("notes.md");
    expect(readFileSync(path.join(await seed.directory(first), "notes.md"), "utf8")).toBe("from A again\n");
    await expect(again.getByTestId("changes-state")).toHaveAttribute("data-state", "uncommitted");
    expect(git(project.directory, "show", "main:notes.md")).toBe("from B\n");

    // On a phone the panel takes the whole width, and nothing scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(async () => (await again.boundingBox())?.width).toBe(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
  } finally {
    const sessions = await seed.db.session.findMany({ where: { teamId, parentId: null, project: { name: folder } }, select: { id: true } });
    for (const session of sessions) await Session.remove(seed.ctx, session.id);
    await seed.db.project.deleteMany({ where: { teamId, id: { not: seed.projectId }, name: folder } });
  }
});
