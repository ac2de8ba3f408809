import type { Page } from "@playwright/test";
import { Session } from "../server/session";
import { expect, test } from "./fixtures";
import { Chat, openChat } from "./pages/chat";
import { PermissionPrompt } from "./pages/permission-prompt";
import { SessionPage } from "./pages/session-page";
import { SharePage } from "./pages/share-page";
import { prompt } from "./support/api";
import { tag } from "./support/people";

/**
 * Permission questions where the work is: inside the tool call that asks, brought into
 * view clear of the sticky composer when they arrive, answered with single keys, and the
 * waiting call marked "Waiting for approval" for members and share viewers alike. The
 * offline model runs `run \`<command>\`` through bash, which asks by default.
 */

function bashTool(page: Page, command: string) {
  return new SessionPage(page).part("tool").filter({ hasText: `$ ${command}` });
}

test("a question arriving while the reader is far up comes into view inside its call, clear of the composer, and Y allows it", async ({ page, seed }) => {
  const session = await seed.session({ title: `Far question ${tag()}` });
  // A conversation several screens long.
  for (let i = 1; i <= 10; i++) {
    const user = await seed.userMessage(session.id, [{ type: "text", text: `Question ${i}` }]);
    const answer = Array.from({ length: 25 }, (_, line) => `Line ${line + 1} of answer ${i}.`).join("\n\n");
    await seed.assistantMessage(session.id, user.id, [{ type: "text", text: answer }]);
  }
  const view = new SessionPage(page);
  const chat = new Chat(page);
  const asks = new PermissionPrompt(page);
  await view.goto(session.id);
  await expect(chat.status).toHaveAttribute("data-status", "idle");
  await expect(page.getByText("Line 25 of answer 10.")).toBeInViewport();
  // The reader scrolls back to the start and reads there.
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(page.getByTestId("jump-to-latest")).toBeVisible();

  const command = `echo far-${tag()}`;
  await prompt(page.request, session.id, `run \`${command}\``);
  const card = asks.request(command);
  const tool = bashTool(page, command);
  // Inside the call it is about, in view, and no answer button under the composer.
  await expect(tool.getByTestId("permission-request")).toBeVisible();
  await expect(card).toBeInViewport({ ratio: 1 });
  await expect.poll(() => asks.buttonsOnTop(card)).toEqual({ once: true, always: true, reject: true });
  await expect(tool.getByTestId("tool-status")).toHaveText("Waiting for approval");
  // The view stays on the question: no "Jump to latest" floating over its answers.
  await expect(page.getByTestId("jump-to-latest")).toHaveCount(0);
  await expect(tool.locator("[data-waiting]")).toHaveAttribute("data-waiting", "approval");

  // The keys are on its buttons, explained, and announced.
  await expect(card).toHaveAttribute("data-oldest", "true");
  await expect(card.getByTestId("answer-key")).toHaveText(["Y", "A", "N"]);
  await expect(card.getByRole("button", { name: "Allow once" })).toHaveAttribute("aria-keyshortcuts", "Y Enter");
  await expect(card.getByTestId("permission-keys")).toContainText("when you are not typing");
  await expect(asks.announcement).toContainText(`Permission needed. The agent asks to run a command: ${command}.`);

  // A key pressed while the question is out of view only brings it back: nothing is
  // approved unseen. Pressed again, it answers. (The message box has the focus since the
  // session opened, where keys type: the reader has left it, say with a click on the page.)
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(card).not.toBeInViewport();
  await page.keyboard.press("y");
  await expect.poll(() => asks.buttonsOnTop(card)).toEqual({ once: true, always: true, reject: true });
  await expect(card).toHaveCount(1);
  await page.keyboard.press("y");
  await expect(asks.requests).toHaveCount(0);
  await expect(tool).toHaveAttribute("data-tool-status", "completed");
  await expect(tool).toContainText(command.replace("echo ", ""));
  await expect(tool.getByTestId("tool-status")).toHaveText("Completed");
  await expect(asks.announcement).toHaveText("");
});

test("keys answer only the oldest question and never what is typed into the composer", async ({ page, seed }) => {
  const { chat } = await openChat(page, seed, "Oldest question");
  const asks = new PermissionPrompt(page);
  const t = tag();
  const first = `echo first-${t}`;
  const second = `echo second-${t}`;
  await chat.ask(`run \`${first}\` and run \`${second}\``);
  await expect(asks.requests).toHaveCount(2);
  await expect(asks.oldest).toHaveCount(1);
  // The newer question below does not push the oldest out of view.
  await expect.poll(() => asks.buttonsOnTop(asks.oldest)).toEqual({ once: true, always: true, reject: true });
  const oldest = (await asks.oldest.getByTestId("permission-patterns").innerText()).trim();
  const newer = oldest === first ? second : first;
  await expect(asks.request(newer).getByTestId("answer-key")).toHaveCount(0);
  await expect(asks.request(newer).getByTestId("permission-keys")).toHaveCount(0);

  // Focus is still in the composer: once something is typed there, the keys are text.
  await chat.input.press("x");
  await chat.input.press("n");
  await chat.input.press("y");
  await expect(chat.input).toHaveValue("xny");
  await expect(asks.requests).toHaveCount(2);
  await chat.input.fill("");
  await chat.input.blur();

  // Enter allows the oldest once; the other becomes the oldest, and N rejects it.
  await expect.poll(() => asks.buttonsOnTop(asks.request(oldest))).toEqual({ once: true, always: true, reject: true });
  await page.keyboard.press("Enter");
  await expect(asks.request(oldest)).toHaveCount(0);
  await expect(bashTool(page, oldest)).toHaveAttribute("data-tool-status", "completed");
  await expect(asks.request(newer)).toHaveAttribute("data-oldest", "true");
  await expect(asks.request(newer).getByTestId("answer-key")).toHaveText(["Y", "A", "N"]);
  await expect.poll(() => asks.buttonsOnTop(asks.request(newer))).toEqual({ once: true, always: true, reject: true });
  await page.keyboard.press("n");
  await expect(asks.requests).toHaveCount(0);
  await expect(bashTool(page, newer)).toHaveAttribute("data-tool-status", "error");
});

test("a call waiting for an answer says so on the share page too, live, with nothing to answer there", async ({ page, browser, seed }) => {
  const session = await seed.session({ title: `Shared wait ${tag()}` });
  const url = (await Session.share(seed.ctx, session.id)).share?.url ?? "";
  const viewerPage = await (await browser.newContext()).newPage();
  const viewer = new SharePage(viewerPage);
  await viewer.goto(url);

  const view = new SessionPage(page);
  const asks = new PermissionPrompt(page);
  await view.goto(session.id);
  const command = `echo shared-wait-${tag()}`;
  await new Chat(page).ask(`run \`${command}\``);
  await expect(bashTool(page, command).getByTestId("tool-status")).toHaveText("Waiting for approval");

  // Live on the share page, and still after a reload (it is stored with the call).
  const shared = bashTool(viewerPage, command);
  await expect(shared.getByTestId("tool-status")).toHaveText("Waiting for approval");
  await viewerPage.reload();
  await expect(shared.getByTestId("tool-status")).toHaveText("Waiting for approval");
  await expect(viewerPage.getByTestId("permission-request")).toHaveCount(0);
  await expect(viewerPage.getByRole("button", { name: /allow|reject/i })).toHaveCount(0);

  await asks.allowOnce(command);
  await expect(shared).toHaveAttribute("data-tool-status", "completed");
  await expect(shared.getByTestId("tool-status")).toHaveText("Completed");
});
