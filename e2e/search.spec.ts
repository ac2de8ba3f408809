import { expect, test } from "./fixtures";
import { DashboardPage } from "./pages/dashboard-page";
import { SessionListPage } from "./pages/session-list-page";
import { tag } from "./support/people";
import type { Seeder } from "./support/seed";

/**
 * Full-text search (issue 33, point 8): the session list and the dashboard find a session
 * by a word that is only in one of its tool outputs, and say where with a highlighted
 * snippet in which markup is shown as text, never run.
 */

/** A session titled `title`: asked `ask`, it answered with a completed bash call of `command` that printed `output`. */
async function sessionWithToolOutput(seed: Seeder, title: string, run: { ask: string; command: string; output: string }) {
  const session = await seed.session({ title });
  const user = await seed.userMessage(session.id, [{ type: "text", text: run.ask }]);
  await seed.assistantMessage(session.id, user.id, [
    {
      type: "tool",
      callId: "call_1",
      tool: "bash",
      state: { status: "completed", input: { command: run.command }, output: run.output, title: run.command, metadata: {}, time: { start: 1, end: 2 } },
    },
  ]);
  return session;
}

test("acceptance 1: search in the list finds a session by a word only in a tool output, with the snippet", async ({ page, seed }) => {
  const word = `xylo${tag()}`;
  const found = await sessionWithToolOutput(seed, `Build checks ${tag()}`, {
    ask: "run the checks",
    command: "make check",
    output: `compiling…\nerror: ${word} is missing <script>window.__injected = true</script>\n`,
  });
  const other = await seed.session({ title: `Other work ${tag()}` });
  const otherUser = await seed.userMessage(other.id, [{ type: "text", text: "nothing to see" }]);
  await seed.assistantMessage(other.id, otherUser.id, [{ type: "text", text: "all good", time: { start: 1, end: 2 } }]);

  const list = new SessionListPage(page);
  await list.goto();
  await list.search.fill(word);
  await expect(list.rows).toHaveCount(1);
  const row = list.row(found.title);
  const snippet = row.getByTestId("search-snippet");
  await expect(snippet).toHaveAttribute("data-kind", "tool");
  await expect(snippet.locator("mark")).toHaveText([word]);
  // The output's markup is text on the page, not an element, and did not run.
  await expect(snippet).toContainText(`${word} is missing <script>window.__injected = true</script>`);
  await expect(row.locator("script")).toHaveCount(0);
  expect(await page.evaluate(() => "__injected" in window)).toBe(false);

  // The dashboard's search finds it the same way.
  const dashboard = new DashboardPage(page);
  await dashboard.goto(`?q=${encodeURIComponent(word)}`);
  await expect(dashboard.rows).toHaveCount(1);
  await expect(dashboard.row(found.title).getByTestId("search-snippet").locator("mark")).toHaveText([word]);
});

test("the session sidebar searches too: a word only in a tool output finds the session, and its hit opens it", async ({ page, seed }) => {
  const word = `quokka${tag()}`;
  const found = await sessionWithToolOutput(seed, `Sidebar find ${tag()}`, { ask: "list the files", command: "ls", output: `README.md\n${word}.txt\n` });
  const here = await seed.session({ title: `Where I am ${tag()}` });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/sessions/${here.id}`);
  const sidebar = page.getByTestId("session-sidebar");
  await sidebar.getByTestId("search-box").fill(word);
  const hits = sidebar.getByTestId("sidebar-search-hit");
  await expect(hits).toHaveCount(1);
  await expect(hits.first()).toHaveAttribute("data-session-id", found.id);
  await expect(hits.first().getByTestId("search-snippet").locator("mark").first()).toContainText(word);
  await hits.first().getByRole("link").click();
  await page.waitForURL(`**/sessions/${found.id}`);
  // Emptied, the field gives the sidebar's list back.
  await sidebar.getByTestId("search-box").fill("");
  await expect(sidebar.getByTestId("sidebar-project").first()).toBeVisible();
});
