import { expect, test } from "./fixtures";
import { ProjectSourcesSection } from "./pages/team-page";
import { tag } from "./support/people";
import { type GitServer, createBareRepo, startGitServer } from "../test/git-server";

/**
 * Git-backed projects on the Team page: an owner keeps a token as a team secret, adds a
 * project from a repository served over smart HTTP with basic auth (a real `git
 * http-backend`, started here), and creates an empty one. The token reaches the git server
 * as basic auth and nowhere on the page.
 */

let server: GitServer;
const token = `tok-${tag()}-${tag()}`;

test.beforeAll(async () => {
  server = await startGitServer({ users: { robot: token } });
  createBareRepo(server.root, "app", { head: "trunk", files: { "README.md": "# app\n" } });
});

test.afterAll(async () => {
  await server?.close();
});

test("an owner adds a project from a repository with a token secret, and creates an empty one", async ({ page, seed }) => {
  test.setTimeout(90_000);
  const secret = `git-${tag()}`;
  const folders = [`cloned-${tag()}`, `empty-${tag()}`];
  try {
    await page.goto("/team");
    const sources = new ProjectSourcesSection(page);
    await sources.saveGitToken(secret, token);

    // From the repository: the URL carries no credential; the secret is picked by name.
    const form = await sources.fillClone({ url: server.httpUrl("app"), secret, user: "robot", folder: folders[0]! });
    await form.getByRole("button", { name: "Clone" }).click();
    const cloned = page.getByTestId("project").filter({ hasText: `cloned from ${server.httpUrl("app")}` });
    await expect(cloned).toBeVisible({ timeout: 30_000 });
    await expect(cloned.getByTestId("project-git")).toContainText("default branch trunk");
    // The git server saw the token as basic auth; the page never shows it.
    expect(server.requests.map((r) => r.authorization)).toContain(`Basic ${Buffer.from(`robot:${token}`).toString("base64")}`);
    expect(await page.content()).not.toContain(token);

    // An empty one: a repository with one commit on main.
    await page.getByRole("button", { name: "Create empty" }).click();
    const empty = page.getByTestId("project-empty-form");
    await empty.getByLabel("Folder").fill(folders[1]!);
    await empty.getByRole("button", { name: "Create" }).click();
    await expect(page.getByTestId("project").filter({ hasText: "new repository" }).filter({ hasText: "default branch main" }).first()).toBeVisible();
  } finally {
    // The worker's team is shared with other specs, which expect its one project.
    const teamId = seed.ctx.actor.teamId;
    await seed.db.project.deleteMany({ where: { teamId, id: { not: seed.projectId }, directory: { endsWith: folders[0]! } } });
    await seed.db.project.deleteMany({ where: { teamId, id: { not: seed.projectId }, directory: { endsWith: folders[1]! } } });
    await seed.db.teamSecret.deleteMany({ where: { teamId, name: secret } });
  }
});
