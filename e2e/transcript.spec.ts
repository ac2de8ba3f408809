import type { Locator, Page } from "@playwright/test";
import { Session } from "../server/session";
import { unifiedDiff } from "../server/tool/diff";
import { expect, test } from "./fixtures";
import { openChat } from "./pages/chat";
import { SessionPage } from "./pages/session-page";
import { SharePage } from "./pages/share-page";
import { ToolCard } from "./pages/tool-card";

/**
 * A calm transcript: tool cards are one line until opened, `read` is numbered and
 * highlighted code, file changes are diffs with line numbers and word marks (a removed
 * final newline and a line-ending change included), and the retries of one reply are one
 * card that updates.
 */

function toolCard(scope: Locator | Page, name: string): ToolCard {
  const page = "page" in scope ? scope.page() : scope;
  return new ToolCard(scope.locator('[data-part-type="tool"]').filter({ has: page.getByTestId("tool-name").getByText(name, { exact: true }) }));
}

const rows = (card: ToolCard, kind: "context" | "del" | "add") => card.root.locator(`[data-testid="diff-row"][data-kind="${kind}"]`);

test("tool cards are one line until opened with the mouse or the keyboard; read is numbered, highlighted code; edit is a numbered diff with word marks", async ({ page, seed }) => {
  test.setTimeout(120_000);
  const { chat } = await openChat(page, seed, "Transcript");
  const file = `greeting-${Date.now().toString(36)}.ts`;
  await chat.ask(`write ${file}: export const greeting = "Hello, world"\nthen edit ${file} replacing "Hello" with "Goodbye"\nthen read ${file}`);
  await expect(chat.lastAssistant).toContainText("Done — 3 tool calls", { timeout: 90_000 });
  await chat.waitIdle();

  // Each step is its own reply: the three cards are the page's.
  const write = toolCard(page, "write");
  const edit = toolCard(page, "edit");
  const read = toolCard(page, "read");
  for (const card of [write, edit, read]) {
    await card.expectCollapsed();
    await expect(card.root.getByTestId("tool-title")).toHaveText(file);
    await expect(card.root.getByTestId("tool-status")).toHaveText("Completed");
    // One line: the summary is no taller than its icon row.
    expect((await card.summary.boundingBox())?.height).toBeLessThan(48);
  }
  await expect(read.root.getByTestId("code-view")).toHaveCount(0);

  // The mouse opens read: the file as code, numbered and highlighted as TypeScript, without the tool's markup.
  await read.summary.click();
  const code = read.root.getByTestId("code-view");
  await expect(code).toBeVisible();
  await expect(code).toHaveAttribute("data-language", "ts");
  await expect(code.getByTestId("line-number")).toHaveText(["1"]);
  await expect(code.locator(".hljs-keyword").first()).toHaveText("export");
  await expect(code.locator(".hljs-string")).toHaveText('"Goodbye, world"');
  await expect(code).toContainText('export const greeting = "Goodbye, world"');
  await expect(code).not.toContainText("00001|");
  await expect(code).not.toContainText("<file>");
  await expect(read.root.getByTestId("read-note")).toHaveText("(End of file - total 1 lines)");
  await read.summary.click();
  await read.expectCollapsed();
  await expect(code).toHaveCount(0);

  // The keyboard opens edit: old and new line numbers, and only the changed word marked.
  await edit.summary.focus();
  await page.keyboard.press("Enter");
  await expect(edit.details).toHaveAttribute("open", "");
  await expect(rows(edit, "del")).toHaveCount(1);
  await expect(rows(edit, "add")).toHaveCount(1);
  await expect(rows(edit, "del").getByTestId("diff-old-line")).toHaveText("1");
  await expect(rows(edit, "del").getByTestId("diff-new-line")).toHaveText("");
  await expect(rows(edit, "add").getByTestId("diff-old-line")).toHaveText("");
  await expect(rows(edit, "add").getByTestId("diff-new-line")).toHaveText("1");
  await expect(rows(edit, "del").getByTestId("diff-word")).toHaveText("Hello");
  await expect(rows(edit, "add").getByTestId("diff-word")).toHaveText("Goodbye");
  expect(await rows(edit, "add").getByTestId("diff-word").evaluate((element) => element.tagName)).toBe("INS");
  await expect(edit.root.getByTestId("diff-hunk")).toHaveText("@@ -1,1 +1,1 @@");
  await page.keyboard.press("Space");
  await edit.expectCollapsed();

  // write made the file: every line added.
  await write.open();
  await expect(rows(write, "add")).toHaveCount(1);
  await expect(rows(write, "del")).toHaveCount(0);
  await expect(rows(write, "add").getByTestId("diff-new-line")).toHaveText("1");

  // Opened cards are the reader's choice of the moment: a reload shows them collapsed again.
  await page.reload();
  await expect(chat.lastAssistant).toContainText("Done — 3 tool calls");
  for (const card of [write, edit, read]) await card.expectCollapsed();
});

test("a failing request shows one retry card that counts down to the next attempt and then says how it ended, live and after a reload", async ({ page, seed }) => {
  test.setTimeout(60_000);
  const { chat } = await openChat(page, seed, "Retry card");
  await chat.record();
  await chat.ask("fail with 429");
  await expect(chat.lastAssistant.getByTestId("message-error")).toBeVisible({ timeout: 30_000 });
  await chat.waitIdle();

  const expectCard = async () => {
    const card = chat.part(chat.lastAssistant, "retry");
    await expect(card).toHaveCount(1);
    await expect(card.getByTestId("retry-attempt")).toHaveText("Attempt 1 of 2 failed");
    await expect(card.getByTestId("retry-next")).toHaveText("The reply failed after 2 attempts.");
    await expect(card.getByTestId("retry-error")).toContainText("Rate limit reached for parley-offline");
    await expect(card).toContainText("HTTP 429");
  };
  await expectCard();
  // Live, the one card first waited for the second attempt (counting down from 1 s when the
  // page got the part within that second), then told how the call ended.
  const { retryCards } = await chat.recording();
  expect(retryCards[0]).toMatch(/^Retrying/);
  expect(retryCards.at(-1)).toBe("The reply failed after 2 attempts.");
  for (const text of retryCards) {
    expect(text).toMatch(/^(Retrying \(attempt 2 of 2\)…|Retrying in 1 s \(attempt 2 of 2\)|Retrying now \(attempt 2 of 2\)…|The reply failed after 2 attempts\.)$/);
  }

  await page.reload();
  await expect(chat.lastAssistant.getByTestId("message-error")).toBeVisible();
  await expectCard();
});

test("the stored retries of one reply are one card, in the chat and on the share page; a reply waiting for its next try counts down", async ({ page, browser, seed }) => {
  const session = await seed.session({ title: `Retries ${Date.now().toString(36)}` });
  const t0 = Date.now() - 60_000;
  const ask = await seed.userMessage(session.id, [{ type: "text", text: "Try hard." }]);
  const retries = Array.from({ length: 7 }, (_, i) => ({
    type: "retry" as const,
    attempt: i + 1,
    max: 8,
    error: { name: "APIError" as const, message: `Overloaded (${i + 1})`, statusCode: 529, isRetryable: true },
    time: { created: t0 + i * 2000, next: t0 + i * 2000 + 1000 },
  }));
  await seed.assistantMessage(session.id, ask.id, [...retries, { type: "text", text: "Made it in the end.", time: { start: t0 + 20_000, end: t0 + 21_000 } }]);
  const again = await seed.userMessage(session.id, [{ type: "text", text: "Once more." }]);
  const now = Date.now();
  await seed.assistantMessage(
    session.id,
    again.id,
    [{ type: "retry", attempt: 1, max: 8, error: { name: "APIError", message: "Rate limit reached.", statusCode: 429, isRetryable: true }, time: { created: now, next: now + 120_000 } }],
    { completed: false },
  );

  const expectCards = async (messages: Locator) => {
    const done = messages.filter({ hasText: "Made it in the end." }).locator('[data-part-type="retry"]');
    await expect(done).toHaveCount(1);
    await expect(done.getByTestId("retry-attempt")).toHaveText("Attempt 7 of 8 failed");
    await expect(done.getByTestId("retry-next")).toHaveText("Attempt 8 went through.");
    await expect(done.getByTestId("retry-error")).toHaveText("Overloaded (7)");
    await done.getByText("6 earlier attempts").click();
    const earlier = done.getByTestId("retry-earlier").locator("li");
    await expect(earlier).toHaveCount(6);
    await expect(earlier.first()).toContainText("Attempt 1 · HTTP 529");
    await expect(earlier.first()).toContainText("Overloaded (1)");
    const waiting = messages.filter({ hasText: "Rate limit reached." }).locator('[data-part-type="retry"]');
    await expect(waiting.getByTestId("retry-attempt")).toHaveText("Attempt 1 of 8 failed");
    await expect(waiting.getByTestId("retry-next")).toHaveText(/^Retrying in \d{1,3} s \(attempt 2 of 8\)$/);
  };

  const view = new SessionPage(page);
  await view.goto(session.id);
  await expect(view.part("retry")).toHaveCount(2);
  await expectCards(view.messages);

  const shared = await Session.share(seed.ctx, session.id);
  const viewer = await browser.newContext();
  const share = new SharePage(await viewer.newPage());
  await share.goto(shared.share?.url ?? "");
  await expect(share.part("retry")).toHaveCount(2);
  await expectCards(share.messages);
  // A share viewer has nothing to act on: no Retry now / Stop retrying.
  await expect(share.part("retry").getByRole("button")).toHaveCount(0);
});

test("diffs show a removed final newline and a line-ending change; a failed tool's error is on its one-line summary", async ({ page, seed }) => {
  const session = await seed.session({ title: `Diffs ${Date.now().toString(36)}` });
  const t0 = Date.now() - 60_000;
  const ask = await seed.userMessage(session.id, [{ type: "text", text: "Tidy the files." }]);
  const written = (callId: string, filePath: string, before: string, after: string) => ({
    type: "tool" as const,
    callId,
    tool: "write",
    state: {
      status: "completed" as const,
      input: { filePath, content: after },
      output: `Overwrote ${filePath}.`,
      title: filePath,
      metadata: { filePath, existed: true, ...unifiedDiff(filePath, before, after) },
      time: { start: t0, end: t0 + 40 },
    },
  });
  await seed.assistantMessage(session.id, ask.id, [
    written("call_eof", "notes.txt", "one\ntwo\n", "one\ntwo"),
    written("call_crlf", "win.txt", "a = 1\nb = 2\n", "a = 1\r\nb = 2\r\n"),
    {
      type: "tool",
      callId: "call_lint",
      tool: "bash",
      state: { status: "error", input: { command: "npm run lint" }, error: "Command failed with exit code 2:\nlint: 3 problems", time: { start: t0, end: t0 + 900 } },
    },
  ]);
  const view = new SessionPage(page);
  await view.goto(session.id);

  // The error is readable without opening the card.
  const lint = toolCard(page, "bash");
  await lint.expectCollapsed();
  await expect(lint.root.getByTestId("tool-summary-error")).toBeVisible();
  await expect(lint.root.getByTestId("tool-summary-error")).toHaveText("Command failed with exit code 2: lint: 3 problems");
  await expect(lint.root.getByTestId("tool-error")).toBeHidden();

  // Only the final newline was removed: the diff is not empty and says so.
  const eof = new ToolCard(view.tool("completed").filter({ hasText: "notes.txt" }));
  await eof.open();
  await expect(rows(eof, "context")).toHaveCount(1);
  await expect(rows(eof, "del").getByTestId("diff-line-text")).toHaveText(["two"]);
  await expect(rows(eof, "add").getByTestId("diff-line-text")).toHaveText(["twoNo newline at end of file"]);
  await expect(rows(eof, "add").getByTestId("diff-no-newline")).toBeVisible();
  await expect(rows(eof, "add").getByTestId("diff-no-newline")).toHaveText("No newline at end of file");
  await expect(rows(eof, "del").getByTestId("diff-no-newline")).toHaveCount(0);

  // LF → CRLF: said above the diff, and each new carriage return shown (and marked) as ␍.
  const crlf = new ToolCard(view.tool("completed").filter({ hasText: "win.txt" }));
  await crlf.open();
  await expect(crlf.root.getByTestId("diff-line-endings")).toContainText("Line endings changed: LF → CRLF");
  await expect(rows(crlf, "add")).toHaveCount(2);
  await expect(rows(crlf, "add").getByTestId("diff-cr")).toHaveCount(2);
  await expect(rows(crlf, "add").first().getByTestId("diff-word")).toHaveText("␍");
  await expect(rows(crlf, "del").getByTestId("diff-cr")).toHaveCount(0);
});
