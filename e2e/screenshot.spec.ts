import { expect, test } from "./fixtures";
import { Chat } from "./pages/chat";
import { PermissionPrompt } from "./pages/permission-prompt";
import { SessionListPage } from "./pages/session-list-page";
import { ToolCard } from "./pages/tool-card";

/**
 * The README's screenshot, made the way a person uses Parley (nothing seeded): a new
 * session in the default project, a request the offline agent carries out with its tools
 * (read, then write a file: its card opened on the diff), then a command, which waits in
 * the chat for the person's approval. Skipped unless PARLEY_SCREENSHOT names the file.
 */
test("screenshot for the docs, from a real flow", async ({ page }) => {
  test.skip(!process.env.PARLEY_SCREENSHOT, "set PARLEY_SCREENSHOT=<path> to write the docs screenshot");
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 1000 });
  // No smooth scrolling: the picture is taken once the question has been brought into view.
  await page.emulateMedia({ reducedMotion: "reduce" });
  const list = new SessionListPage(page);
  await list.goto();
  await list.createSession();
  const chat = new Chat(page);
  await chat.ask("Read src/greet.ts then write src/farewell.ts: export const farewell = (name: string) => `Goodbye, ${name}!`;");
  await chat.waitIdle();
  const written = page.locator('[data-part-type="tool"][data-tool-status="completed"]').filter({ hasText: "farewell.ts" }).last();
  await new ToolCard(written).open();
  await chat.ask("Run ls -la src");
  const prompt = new PermissionPrompt(page);
  await expect(prompt.oldest).toBeInViewport({ ratio: 1 });
  await expect(page.getByText("Waiting for approval").first()).toBeVisible();
  await page.screenshot({ path: process.env.PARLEY_SCREENSHOT });
});
