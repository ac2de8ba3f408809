import { Session } from "../server/session";
import { expect, test } from "./fixtures";
import { openChat } from "./pages/chat";
import { SharePage } from "./pages/share-page";
import { ToolCard } from "./pages/tool-card";

/**
 * Subagents with the offline model: the parent's task card follows the child live, opens
 * it, and the child's breadcrumb leads back; the dashboard shows the child under its
 * parent; the parent's share link shows the child's content.
 */

test("a subagent's progress shows live on the task card, which opens the child; the dashboard and the share page show it", async ({ page, seed, browser }) => {
  test.setTimeout(120_000);
  const { session, chat } = await openChat(page, seed, "Subagent");
  // The child streams slowly (the switch is inside the quotes: the child's, not the parent's).
  await chat.ask("use a subagent to `stream slowly and list files`");
  const card = page.locator('[data-part-type="tool"]').filter({ has: page.getByTestId("tool-name").getByText("task", { exact: true }) });
  await expect(card).toHaveAttribute("data-tool-status", "running", { timeout: 30_000 });
  // The collapsed card's line follows the child while the task runs: how many calls it made
  // (and, while one runs, which: "· now list" — the list call may end before it is seen).
  await expect(card.getByTestId("tool-progress")).toContainText(/^1 tool call( · now list)?/, { timeout: 30_000 });
  await expect(card).toHaveAttribute("data-tool-status", "running");
  await new ToolCard(card).open();
  // Live: the child's list call appears on the card while the task still runs.
  await expect(card.getByTestId("task-progress-item").filter({ hasText: "list" })).toBeVisible({ timeout: 30_000 });
  await expect(card).toHaveAttribute("data-tool-status", "running");
  await expect(card).toHaveAttribute("data-tool-status", "completed", { timeout: 60_000 });
  await expect(card.getByTestId("task-progress-item").filter({ hasText: "list" })).toHaveAttribute("data-status", "completed");
  await expect(card.getByTestId("tool-progress")).toHaveText("1 tool call");
  await chat.waitIdle();
  // The result is the child's answer, rendered; the task_id protocol is for the model only.
  const result = card.getByTestId("task-answer");
  await expect(result).not.toBeEmpty();
  await expect(result).not.toContainText("task_id");
  await expect(result).not.toContainText("task_result");

  const [child] = await Session.children(seed.ctx, session.id);
  if (!child) throw new Error("no child session");
  expect(child.title).toBe("stream slowly and list files (@general subagent)");

  await card.getByTestId("open-child").click();
  await page.waitForURL(`**/sessions/${child.id}`);
  await expect(page.getByTestId("session-title")).toHaveText(child.title);
  await expect(page.locator('[data-part-type="tool"][data-tool-status="completed"]').filter({ hasText: "README.md" })).toHaveCount(1);
  // The child's prompt was written by the parent's agent, not by the member.
  const prompt = page.locator('[data-testid="message"][data-role="user"]').first();
  await expect(prompt.getByTestId("message-author")).toHaveText("@build agent");
  await expect(prompt.getByTestId("message-delegated")).toHaveAttribute("href", `/sessions/${session.id}`);
  await page.getByTestId("breadcrumb-parent").click();
  await page.waitForURL(`**/sessions/${session.id}`);

  await page.goto("/dashboard");
  const childRow = page.getByTestId("dashboard-row").filter({ hasText: child.title });
  await expect(childRow).toHaveAttribute("data-depth", "1");

  const shared = await Session.share(seed.ctx, session.id);
  const viewer = await browser.newContext();
  try {
    const share = new SharePage(await viewer.newPage());
    await share.goto(shared.share?.url ?? "");
    // The shared task card shows the child's answer too, without the model's task_id protocol.
    const sharedTask = share.page.locator("details").filter({ has: share.page.getByTestId("tool-name").getByText("task", { exact: true }) });
    await sharedTask.locator("summary").click();
    await expect(sharedTask.getByTestId("task-answer")).not.toBeEmpty();
    await expect(sharedTask.getByTestId("task-answer")).not.toContainText("task_id");
    await expect(share.children.getByRole("link", { name: child.title })).toBeVisible();
    await share.children.getByRole("link", { name: child.title }).click();
    await expect(share.tool("completed").filter({ hasText: "README.md" })).toHaveCount(1);
    await expect(share.messages.first().getByTestId("message-author")).toHaveText("@build agent");
  } finally {
    await viewer.close();
  }
});

test("D4: a subagent's permission question shows on the parent's task card and is answered there", async ({ page, seed }) => {
  test.setTimeout(120_000);
  const { session, chat } = await openChat(page, seed, "Subagent question");
  await chat.ask("use a subagent to run echo asked-from-the-child");
  const card = page.locator('[data-part-type="tool"]').filter({ has: page.getByTestId("tool-name").getByText("task", { exact: true }) });
  // The task waits for a person, and says so, with the child's question right below it.
  await expect(card.getByTestId("tool-status")).toHaveText("Waiting for approval", { timeout: 30_000 });
  const questions = card.getByTestId("child-questions");
  const question = questions.getByTestId("permission-request");
  await expect(question).toBeVisible();
  await expect(question.getByTestId("permission-patterns")).toHaveText("echo asked-from-the-child");
  const [child] = await Session.children(seed.ctx, session.id);
  if (!child) throw new Error("no child session");
  await expect(questions).toHaveAttribute("data-session-id", child.id);
  // The parent's own page has no question of its own: only the task card shows the child's.
  await expect(page.getByTestId("permission-prompt")).toHaveCount(0);

  await question.locator('[data-answer="once"]').click();
  await expect(questions).toHaveCount(0);
  await expect(card).toHaveAttribute("data-tool-status", "completed", { timeout: 60_000 });
  await chat.waitIdle();
  const childMessages = await Session.allMessages(seed.ctx, child.id);
  const bash = childMessages.flatMap((m) => m.parts).find((p) => p.type === "tool" && p.tool === "bash");
  expect(bash?.type === "tool" ? bash.state.status : undefined).toBe("completed");
});
