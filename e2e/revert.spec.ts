import { existsSync, readFileSync } from "node:fs";
import { Session } from "../server/session";
import { expect, test } from "./fixtures";
import { Chat, openChatInFolder } from "./pages/chat";
import { SessionPage } from "./pages/session-page";

/**
 * Undo and the message actions, against the offline model writing real files in the
 * session's workspace of the e2e project (each test in a folder of its own): revert from the chat and unrevert, the turn's
 * diff, edit and resend, regenerate, retry after a failure, copy, and the dashboard's lines.
 */

async function turn(chat: Chat, text: string) {
  await chat.ask(text);
  await expect(chat.user(text)).toHaveCount(1);
  await expect(chat.lastAssistant).toHaveAttribute("data-state", "done", { timeout: 30_000 });
  await chat.waitIdle();
}

const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : undefined);

test.describe("revert and message actions", () => {
  test("revert to a message from the chat: its files and messages go; unrevert brings both back; the next message makes it final", async ({ page, seed }) => {
    test.setTimeout(90_000);
    const { session, chat, folder, file } = await openChatInFolder(page, seed, "Revert", "revert");
    await turn(chat, `write 'one' to ${folder}/a.txt`);
    const repliesToFirst = await chat.assistants.count();
    const second = `write 'two' to ${folder}/b.txt, edit ${folder}/a.txt replacing 'one' with 'uno'`;
    await turn(chat, second);
    expect(read(file("a.txt"))).toBe("uno\n");
    expect(read(file("b.txt"))).toBe("two\n");

    // The turn's diff: its files, and the diff on request.
    const turnDiff = chat.user(second).getByTestId("turn-diff");
    await expect(turnDiff).toContainText("This turn changed 2 files");
    await turnDiff.getByRole("button").click();
    await expect(turnDiff.getByTestId("turn-diff-text")).toContainText("+uno");
    await expect(turnDiff.getByTestId("turn-diff-files")).toContainText(`${folder}/b.txt`);
    // A patch part lists the files of the step.
    await expect(chat.part(page.locator("body"), "patch").filter({ hasText: `${folder}/b.txt` })).toHaveCount(1);

    await chat.user(second).getByTestId("revert-message").click();
    const banner = page.getByTestId("revert-banner");
    await expect(banner.getByTestId("revert-count")).toHaveText("3 messages reverted"); // the message and the two replies of its turn (a tool step, then the answer)
    await expect(chat.user(second)).toHaveCount(0);
    await expect(chat.assistants).toHaveCount(repliesToFirst);
    await expect.poll(() => read(file("a.txt"))).toBe("one\n");
    expect(read(file("b.txt"))).toBeUndefined();
    await banner.getByText("Files and changes the revert undid").click();
    await expect(banner.getByTestId("revert-files")).toContainText(`${folder}/b.txt`);

    await banner.getByTestId("unrevert").click();
    await expect(banner).toHaveCount(0);
    await expect(chat.user(second)).toHaveCount(1);
    await expect.poll(() => read(file("b.txt"))).toBe("two\n");
    expect(read(file("a.txt"))).toBe("uno\n");

    // The dashboard shows what the session changed.
    await page.goto(`/dashboard?q=${encodeURIComponent(session.title)}`);
    const row = page.getByTestId("dashboard-row").filter({ hasText: session.title });
    await expect(row).toContainText("+2");
    await page.goBack();
    await expect(chat.user(second)).toHaveCount(1);

    // Revert again, then send: the hidden messages are deleted for good.
    await chat.user(second).getByTestId("revert-message").click();
    await expect(page.getByTestId("revert-banner")).toBeVisible();
    await turn(chat, `write 'three' to ${folder}/c.txt`);
    await expect(page.getByTestId("revert-banner")).toHaveCount(0);
    const stored = await Session.allMessages(seed.ctx, session.id);
    expect(stored.filter((m) => m.info.role === "user")).toHaveLength(2);
    expect(read(file("b.txt"))).toBeUndefined();
    expect(read(file("c.txt"))).toBe("three\n");
  });

  test("edit and resend a message, then regenerate the reply, from the keyboard", async ({ page, seed }) => {
    test.setTimeout(90_000);
    const { session, chat, folder, file } = await openChatInFolder(page, seed, "Edit", "revert");
    const first = `write 'first' to ${folder}/e.txt`;
    await turn(chat, first);

    const firstReply = await chat.lastAssistant.getAttribute("data-message-id");
    const edit = chat.user(first).getByTestId("edit-message");
    await edit.focus();
    await page.keyboard.press("Enter");
    const input = page.getByTestId("edit-message-input");
    await expect(input).toHaveValue(first);
    const edited = `write 'second' to ${folder}/f.txt`;
    await input.fill(edited);
    await input.press("Enter");
    await expect(chat.user(edited)).toHaveCount(1);
    await expect(chat.user(first)).toHaveCount(0);
    await expect(page.locator(`[data-message-id="${firstReply}"]`)).toHaveCount(0);
    await expect(chat.assistants.last()).toContainText("Done", { timeout: 30_000 });
    await expect(chat.lastAssistant).toHaveAttribute("data-state", "done", { timeout: 30_000 });
    await chat.waitIdle();
    expect(read(file("e.txt"))).toBeUndefined();
    expect(read(file("f.txt"))).toBe("second\n");

    const before = await chat.lastAssistant.getAttribute("data-message-id");
    const regenerate = chat.lastAssistant.getByTestId("regenerate-reply");
    await regenerate.focus();
    await page.keyboard.press("Enter");
    await expect(chat.lastAssistant).not.toHaveAttribute("data-message-id", before ?? "");
    await expect(chat.lastAssistant).toHaveAttribute("data-state", "done", { timeout: 30_000 });
    await chat.waitIdle();
    await expect(chat.user(edited)).toHaveCount(1);
    const stored = await Session.allMessages(seed.ctx, session.id);
    const users = stored.filter((m) => m.info.role === "user");
    expect(users).toHaveLength(1);
    // One turn: every reply answers the edited message, none is the one regenerated.
    expect(stored.filter((m) => m.info.role === "assistant").every((m) => m.info.role === "assistant" && m.info.parentId === users[0]?.info.id)).toBe(true);
    expect(stored.some((m) => m.info.id === before)).toBe(false);
    expect(read(file("f.txt"))).toBe("second\n");
  });

  test("a reply that failed with a 500 can be retried", async ({ page, seed }) => {
    test.setTimeout(90_000);
    const { session, chat } = await openChatInFolder(page, seed, "Retry reply", "revert");
    await chat.ask("fail with 500");
    await expect(chat.lastAssistant.getByTestId("message-error")).toBeVisible({ timeout: 30_000 });
    await chat.waitIdle();
    const failed = await chat.lastAssistant.getAttribute("data-message-id");
    await chat.lastAssistant.getByTestId("retry-reply").click();
    await expect(chat.lastAssistant).not.toHaveAttribute("data-message-id", failed ?? "");
    await expect(chat.lastAssistant.getByTestId("message-error")).toBeVisible({ timeout: 30_000 });
    await chat.waitIdle();
    await expect(chat.user("fail with 500")).toHaveCount(1);
    const stored = await Session.allMessages(seed.ctx, session.id);
    expect(stored.map((m) => m.info.role)).toEqual(["user", "assistant"]);
    expect(stored[1]?.info.id).not.toBe(failed);
  });

  test("copy puts a whole message, or one code block, in the clipboard", async ({ page, seed, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const session = await seed.session({ title: `Copy ${Date.now().toString(36)}` });
    const user = await seed.userMessage(session.id, [{ type: "text", text: "Show me a snippet" }]);
    const reply = "Here it is:\n\n```ts\nconst answer = 42;\n```\n\nThat is all.";
    await seed.assistantMessage(session.id, user.id, [{ type: "text", text: reply, time: { start: 1, end: 2 } }]);
    await new SessionPage(page).goto(session.id);
    const chat = new Chat(page);
    const block = chat.lastAssistant.getByTestId("code-block");
    await expect(block.getByTestId("code-language")).toHaveText("ts");
    await block.getByTestId("copy-code").click();
    await expect(block.getByTestId("copy-code")).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("const answer = 42;\n");
    await chat.lastAssistant.getByTestId("copy-message").click();
    await expect(chat.lastAssistant.getByTestId("copy-message")).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(reply);
  });
});
