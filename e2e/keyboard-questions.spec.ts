import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { AppShell } from "./pages/app-shell";
import { Chat, openChat } from "./pages/chat";
import { PermissionPrompt } from "./pages/permission-prompt";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";
import { tag } from "./support/people";

/**
 * Issue 33, point 1: a keyboard that never kills a turn. While a permission question
 * waits, Escape in the message box goes to the question (a second Escape rejects it) and
 * never stops the turn; Y / A / N / Enter answer from an empty message box, and are text
 * once something is typed; Ctrl+. (the dedicated stop key) and the Stop button still stop
 * it. "?" lists every shortcut; Ctrl+K searches and Ctrl+Shift+O starts a session. The
 * per-part "Revert to here" buttons are no Tab stops. The offline model runs
 * `run \`<command>\`` through bash, which asks by default.
 */

function bashTool(page: Page, command: string) {
  return new SessionPage(page).part("tool").filter({ hasText: `$ ${command}` });
}

/** A session whose turn waits on the question to run `command`, the message box focused and empty. */
async function waitingQuestion(page: Page, chat: Chat, command: string) {
  const asks = new PermissionPrompt(page);
  await chat.ask(`run \`${command}\``);
  const card = asks.request(command);
  await expect(card).toHaveAttribute("data-oldest", "true");
  await expect.poll(() => asks.buttonsOnTop(card)).toEqual({ once: true, always: true, reject: true });
  await expect(chat.input).toBeFocused();
  await expect(chat.input).toHaveValue("");
  return { asks, card, tool: bashTool(page, command) };
}

test("Escape with a pending question does not stop the turn: it goes to the question, and Enter there allows once; the turn goes on", async ({ page, seed }) => {
  test.setTimeout(60_000);
  const { chat } = await openChat(page, seed, "Esc question");
  const command = `echo esc-${tag()}`;
  const { asks, card, tool } = await waitingQuestion(page, chat, command);

  await chat.input.press("Escape");
  await expect(card).toBeFocused();
  // The turn still runs and waits on the question: nothing was stopped.
  await expect(chat.status).not.toHaveAttribute("data-status", "idle");
  await expect(chat.lastAssistant.getByTestId("message-error")).toHaveCount(0);
  await expect(asks.requests).toHaveCount(1);

  await page.keyboard.press("Enter");
  await expect(asks.requests).toHaveCount(0);
  await expect(tool).toHaveAttribute("data-tool-status", "completed");
  await expect(tool).toContainText(command.replace("echo ", ""));
  await chat.waitIdle();
  await expect(chat.lastAssistant.getByTestId("message-error")).toHaveCount(0);
  // Answered from its card, the focus is back where the next message is typed.
  await expect(chat.input).toBeFocused();
});

test("from an empty message box Y allows and N rejects; with text in it Y is typed; Escape twice rejects", async ({ page, seed }) => {
  test.setTimeout(90_000);
  const { chat } = await openChat(page, seed, "Keys from the box");

  const allowed = `echo yes-${tag()}`;
  const first = await waitingQuestion(page, chat, allowed);
  await page.keyboard.press("y");
  await expect(first.asks.requests).toHaveCount(0);
  await expect(first.tool).toHaveAttribute("data-tool-status", "completed");
  await expect(chat.input).toHaveValue("");
  await chat.waitIdle();

  const rejected = `echo no-${tag()}`;
  const second = await waitingQuestion(page, chat, rejected);
  // With text in the box the letters are text, and the question waits.
  await page.keyboard.type("Okay");
  await page.keyboard.press("Y");
  await expect(chat.input).toHaveValue("OkayY");
  await expect(second.asks.requests).toHaveCount(1);
  await chat.input.fill("");
  await page.keyboard.press("n");
  await expect(second.asks.requests).toHaveCount(0);
  await expect(second.tool).toHaveAttribute("data-tool-status", "error");
  await expect(chat.input).toHaveValue("");
  await chat.waitIdle();
  await expect(chat.lastAssistant.locator('[data-error-name="AbortedError"]')).toHaveCount(0);

  const escaped = `echo twice-${tag()}`;
  const third = await waitingQuestion(page, chat, escaped);
  await page.keyboard.type("draft");
  await page.keyboard.press("Escape");
  await expect(third.card).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(third.asks.requests).toHaveCount(0);
  await expect(third.tool).toHaveAttribute("data-tool-status", "error");
  await expect(chat.input).toBeFocused();
  // What was typed is still there.
  await expect(chat.input).toHaveValue("draft");
  await chat.waitIdle();
  await expect(chat.lastAssistant.locator('[data-error-name="AbortedError"]')).toHaveCount(0);
});

test("Ctrl+. stops the turn while a question waits; the Stop button does too", async ({ page, seed }) => {
  test.setTimeout(90_000);
  const { chat } = await openChat(page, seed, "Stop key");
  const first = await waitingQuestion(page, chat, `echo stop-key-${tag()}`);
  await page.keyboard.press("Control+Period");
  await expect(chat.lastAssistant.getByTestId("message-error")).toHaveAttribute("data-error-name", "AbortedError");
  await chat.waitIdle();
  await expect(first.asks.requests).toHaveCount(0);

  const second = await waitingQuestion(page, chat, `echo stop-button-${tag()}`);
  await chat.stop.click();
  await expect(chat.lastAssistant.getByTestId("message-error")).toHaveAttribute("data-error-name", "AbortedError");
  await chat.waitIdle();
  await expect(second.asks.requests).toHaveCount(0);
});

test("? lists every shortcut, Y / A / N and the new ones included", async ({ page, seed }) => {
  const shell = new AppShell(page);
  await openChat(page, seed, "Help");
  await page.getByTestId("session-title").click();
  await page.keyboard.press("?");
  await expect(shell.shortcutHelp).toBeVisible();
  for (const text of [
    "Allow the waiting question once",
    "Always allow the waiting question",
    "Reject the waiting question",
    "go to the question instead",
    "Stop the agent's reply, also while a question waits",
    "Search sessions",
    "Start a new session",
  ]) {
    await expect(shell.shortcutHelp).toContainText(text);
  }
  const keys = await shell.shortcutHelp.locator("dd").allInnerTexts();
  const flat = keys.map((k) => k.replace(/\s+/g, ""));
  for (const combo of ["Y", "A", "N", "Ctrl/⌘+K", "Ctrl/⌘+Shift+O", "Ctrl/⌘+."]) expect(flat).toContain(combo);
  await page.keyboard.press("Escape");
  await expect(shell.shortcutHelp).toBeHidden();
});

test("Ctrl+K goes to the search box (on a session page: the sidebar's); Ctrl+Shift+O starts a new session, from the list and from a session", async ({ page, seed }) => {
  test.setTimeout(60_000);
  const list = new SessionListPage(page);
  await list.goto();
  await page.getByRole("heading", { name: "Sessions", level: 1 }).click();
  await page.keyboard.press("Control+k");
  await expect(list.search).toBeFocused();

  const { chat } = await openChat(page, seed, "Shortcuts");
  await expect(chat.input).toBeFocused();
  // From the message box too: Ctrl+K is not text. A session page's search is its sidebar's.
  await page.keyboard.press("Control+k");
  const sidebarSearch = page.getByTestId("session-sidebar").getByTestId("search-box");
  await expect(sidebarSearch).toBeFocused();
  await page.keyboard.type("Shortcuts");
  await expect(sidebarSearch).toHaveValue("Shortcuts");
  await expect(chat.input).toHaveValue("");

  await list.goto();
  await list.search.fill("Shortcuts");

  await page.keyboard.press("Control+Shift+O");
  await page.waitForURL(/\/sessions\/ses_[0-9a-zA-Z]+$/);
  const fromList = new URL(page.url()).pathname.split("/").pop();
  await expect(chat.input).toBeVisible();

  await page.keyboard.press("Control+Shift+O");
  await expect.poll(() => new URL(page.url()).pathname.split("/").pop(), { timeout: 15_000 }).not.toBe(fromList);
  await page.waitForURL(/\/sessions\/ses_[0-9a-zA-Z]+$/);
  await expect(chat.input).toBeVisible();
  await expect(chat.messages).toHaveCount(0);
});

test("from the top of a 4-turn session the message box is a bounded number of Tab stops away; per-part Revert is none of them", async ({ page, seed }) => {
  const session = await seed.session({ title: `Tab stops ${tag()}` });
  const now = Date.now();
  for (let i = 1; i <= 4; i++) {
    const user = await seed.userMessage(session.id, [{ type: "text", text: `Question ${i}`, time: { start: now, end: now } }]);
    await seed.assistantMessage(
      session.id,
      user.id,
      [1, 2, 3, 4].map((n) => ({ type: "text" as const, text: `Part ${n} of answer ${i}.`, time: { start: now, end: now } })),
    );
  }
  const view = new SessionPage(page);
  const chat = new Chat(page);
  await view.goto(session.id);
  await expect(chat.status).toHaveAttribute("data-status", "idle");
  // Each reply part still offers "Revert to here" (on hover): 16 of them.
  await expect(page.getByTestId("revert-part")).toHaveCount(16);

  // Click the empty page margin at the top: the next Tab starts from the top of the document.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.mouse.click(4, 400);
  await expect(chat.input).not.toBeFocused();
  const stops: string[] = [];
  for (let i = 0; i < 100; i++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el) return "none";
      const where = el.closest('[data-testid="message"]') ? "message:" : "";
      return `${where}${el.id === "message-box" ? "#message-box" : ""}${el.getAttribute("data-testid") ?? el.tagName}`;
    });
    stops.push(focused);
    if (focused.startsWith("#message-box")) break;
  }
  test.info().annotations.push({ type: "tab-stops", description: `${stops.length}: ${stops.join(" ")}` });
  expect(stops.at(-1), stops.join(" ")).toMatch(/^#message-box/);
  expect(stops.filter((stop) => stop.endsWith("revert-part"))).toEqual([]);
  // In the conversation: Copy / Edit / Revert under each prompt, Copy under each reply and
  // Regenerate on the last — 17, where each reply part added one more before (16 here).
  expect(stops.filter((stop) => stop.startsWith("message:")).length, stops.join(" ")).toBeLessThanOrEqual(17);
  // With the skip links and the header's and session's controls: 39 today, 73 before.
  expect(stops.length, stops.join(" ")).toBeLessThanOrEqual(45);
});
