import { expect, test } from "./fixtures";
import { AppShell } from "./pages/app-shell";
import { openChat } from "./pages/chat";
import { DashboardPage } from "./pages/dashboard-page";

/**
 * The keyboard: the message box is focused when a session opens, "/" focuses it, "?"
 * lists the shortcuts, Escape stops the agent, and skip links lead past the header and the
 * conversation. What the agent did is announced to screen readers through a live region.
 */

test("the message box is focused on open, / focuses it again, ? lists the shortcuts", async ({ page, seed }) => {
  const shell = new AppShell(page);
  const { chat } = await openChat(page, seed, "Keys");
  await expect(chat.input).toBeFocused();

  // Elsewhere on the page, "/" comes back to the box, without typing a slash into it.
  await page.getByTestId("session-title").click();
  await expect(chat.input).not.toBeFocused();
  await page.keyboard.press("/");
  await expect(chat.input).toBeFocused();
  await expect(chat.input).toHaveValue("");
  await expect(chat.input).toHaveAttribute("aria-keyshortcuts", "/");

  // In the box, "/" and "?" are just text.
  await page.keyboard.type("a/b?");
  await expect(chat.input).toHaveValue("a/b?");
  await expect(shell.shortcutHelp).toBeHidden();

  // "?" from the page opens the help; Escape closes it.
  await page.getByTestId("session-title").click();
  await page.keyboard.press("?");
  await expect(shell.shortcutHelp).toBeVisible();
  for (const text of ["Focus the message box", "Stop the agent's reply while it works", "Send the message", "the command menu", "the next agent", "run the rest as a shell command", "Show these shortcuts"]) {
    await expect(shell.shortcutHelp).toContainText(text);
  }
  await expect(shell.shortcutHelp.getByRole("button", { name: "Close" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(shell.shortcutHelp).toBeHidden();
});

test("Escape stops a running reply (but first closes a dialog), and the end of each reply is announced", async ({ page, seed }) => {
  test.setTimeout(90_000);
  const shell = new AppShell(page);
  const { chat } = await openChat(page, seed, "Escape");

  // A quick reply: its end is announced.
  await chat.ask("list files");
  await chat.waitIdle();
  await expect(shell.announcer).toHaveText("The agent finished its reply.");

  await chat.ask("Stream slowly and write a long answer");
  await expect(chat.stop).toBeVisible();
  await expect(chat.status).toHaveAttribute("data-status", "busy");

  // With the shortcut help open, Escape closes the help and the agent keeps working.
  await page.getByTestId("session-title").click();
  await page.keyboard.press("?");
  await expect(shell.shortcutHelp).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(shell.shortcutHelp).toBeHidden();
  await expect(chat.status).toHaveAttribute("data-status", "busy");

  // From the message box, Escape stops it.
  await chat.input.focus();
  await page.keyboard.press("Escape");
  const error = chat.lastAssistant.getByTestId("message-error");
  await expect(error).toHaveAttribute("data-error-name", "AbortedError");
  await chat.waitIdle();
  await expect(shell.announcer).toHaveText("The agent's reply was stopped.");

  // Idle, Escape does nothing to the next reply.
  await chat.ask("list files");
  await chat.waitIdle();
  await page.keyboard.press("Escape");
  await expect(chat.lastAssistant.getByTestId("message-error")).toHaveCount(0);
  await expect(shell.announcer).toHaveText("The agent finished its reply.");
});

test("skip links: from the top of a session, two Tabs and Enter reach the message box; elsewhere one leads to the content", async ({ page, seed }) => {
  const shell = new AppShell(page);
  // Wide enough for an empty page margin right of the column (the session sidebar takes the left one).
  await page.setViewportSize({ width: 1600, height: 720 });
  const { chat } = await openChat(page, seed, "Skip");
  // Click the empty page margin: the next Tab starts from the top of the document.
  await page.mouse.click(1596, 400);
  await expect(chat.input).not.toBeFocused();
  const toContent = page.getByRole("link", { name: "Skip to main content" });
  const toBox = page.getByRole("link", { name: "Skip to message box" });
  await expect(toContent).not.toBeInViewport();
  await page.keyboard.press("Tab");
  await expect(toContent).toBeFocused();
  await expect(toContent).toBeInViewport();
  await page.keyboard.press("Tab");
  await expect(toBox).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(chat.input).toBeFocused();

  // On a page without a message box, the first Tab reaches the skip link, which moves focus to the main content.
  const dashboard = new DashboardPage(page);
  await dashboard.goto();
  await page.keyboard.press("Tab");
  await expect(toContent).toBeFocused();
  await expect(toBox).toHaveCount(0);
  await page.keyboard.press("Enter");
  await expect(shell.main).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(dashboard.search).toBeFocused();
});
