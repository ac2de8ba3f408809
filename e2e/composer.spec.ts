import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ChatMessage, FakeOpenAI } from "../test/fake-openai";
import { reply } from "../test/fake-openai";
import { expect, test } from "./fixtures";
import { openChat } from "./pages/chat";
import { ComposerExtras, type TestFile } from "./pages/composer";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";
import { VISION_MODEL } from "./support/fake-provider";

/**
 * The composer beyond text: files attached by the picker, by pasting and by dropping; `@`
 * mentions of project files completed from the keyboard; what reaches the model, checked
 * at a fake OpenAI-compatible server (a model that sees images, e2e/parley.config.json);
 * and the first run of a session: its readable title and its starter prompts.
 */

// A 1×1 PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const NOTES = "Release notes\n- attachments reach the model\n";

const file = (name: string, mimeType: string, content: string | Buffer): TestFile => ({ name, mimeType, buffer: Buffer.isBuffer(content) ? content : Buffer.from(content) });

/** The content parts of the last user message a request to the fake model carried. */
function lastUserContent(fake: FakeOpenAI): NonNullable<Exclude<ChatMessage["content"], string>> {
  const body = fake.requests.at(-1)?.body;
  const user = body?.messages.filter((m) => m.role === "user").at(-1);
  if (!user || !Array.isArray(user.content)) throw new Error(`no user message with parts in ${JSON.stringify(body)}`);
  return user.content;
}

test.describe("the composer", () => {
  test("an attached text file and a pasted image reach the model; the message shows them", async ({ page, seed, fake }) => {
    const { chat } = await openChat(page, seed, "Attachments");
    const composer = new ComposerExtras(page);
    await chat.chooseModel(VISION_MODEL);
    fake.enqueue(reply.text("A text file and a tiny image."));

    await composer.attach(file("notes.txt", "text/plain", NOTES));
    await composer.input.click();
    await composer.paste(file("image.png", "image/png", PNG));
    await expect(composer.chips).toHaveCount(2);
    await expect(composer.chip("notes.txt")).toHaveAttribute("data-kind", "text");
    await expect(composer.chip("image.png")).toHaveAttribute("data-kind", "image");

    await chat.ask("What do these show?");
    await expect(composer.chips).toHaveCount(0);
    await expect(chat.lastAssistant).toContainText("A text file and a tiny image.");
    const content = lastUserContent(fake);
    expect(content).toContainEqual({ type: "text", text: "What do these show?" });
    expect(content).toContainEqual({ type: "text", text: `Called the read tool on notes.txt:\n${NOTES}` });
    expect(content).toContainEqual({ type: "image_url", image_url: expect.objectContaining({ url: `data:image/png;base64,${PNG.toString("base64")}` }) });

    // The message shows what was attached, and so does a reload.
    const sent = chat.user("What do these show?");
    await expect(sent).toContainText("notes.txt");
    await expect(sent.getByRole("img", { name: "image.png" })).toBeVisible();
    await page.reload();
    await expect(chat.user("What do these show?").getByRole("img", { name: "image.png" })).toBeVisible();
  });

  test("a dropped file is attached and can be removed; a too-large or unsupported file is refused clearly, losing nothing typed", async ({ page, seed }) => {
    await openChat(page, seed, "Attachment limits");
    const composer = new ComposerExtras(page);
    await composer.input.fill("my draft stays");

    await composer.drop(file("dropped.md", "text/markdown", "# Dropped\n"));
    await expect(composer.chip("dropped.md")).toBeVisible();

    await composer.attach(file("big.log", "text/plain", "x".repeat(300 * 1024)), file("archive.zip", "application/zip", Buffer.from([0x50, 0x4b, 3, 4, 0, 0])));
    await expect(composer.attachError).toContainText("big.log is 300 KB: text files can be attached up to 256 KB");
    await expect(composer.attachError).toContainText("archive.zip cannot be attached: only text files and PNG, JPEG, GIF or WebP images can");
    await expect(composer.chips).toHaveCount(1);
    await expect(composer.input).toHaveValue("my draft stays");

    await composer.chip("dropped.md").getByRole("button", { name: "Remove dropped.md" }).click();
    await expect(composer.chips).toHaveCount(0);
    await expect(composer.attachError).toHaveCount(0);
    await expect(composer.input).toHaveValue("my draft stays");
  });

  test("@src/gr completes to a project file from the keyboard, and the file's content reaches the model", async ({ page, seed, fake }) => {
    const { session, chat } = await openChat(page, seed, "Mentions");
    const composer = new ComposerExtras(page);
    await chat.chooseModel(VISION_MODEL);
    fake.enqueue(reply.text("greet says hello."));

    // "@s" lists several files: ↓/↑ move the choice; Escape closes the list and keeps the text.
    await composer.input.click();
    await composer.input.pressSequentially("Explain @s");
    await expect(composer.mentionMenu).toHaveAttribute("data-query", "s");
    await expect(composer.mentionOptions.nth(1)).toBeVisible();
    await expect(composer.mentionOptions.first()).toHaveAttribute("aria-selected", "true");
    await composer.input.press("ArrowDown");
    await expect(composer.mentionOptions.nth(1)).toHaveAttribute("aria-selected", "true");
    await expect(composer.mentionOptions.first()).toHaveAttribute("aria-selected", "false");
    await composer.input.press("ArrowUp");
    await expect(composer.mentionOptions.first()).toHaveAttribute("aria-selected", "true");
    await composer.input.press("Escape");
    await expect(composer.mentionMenu).toHaveCount(0);
    await expect(composer.input).toHaveValue("Explain @s");

    // A new mention opens the list again; "@src/gr" narrows it to one file, which Tab inserts.
    await composer.input.press("Backspace");
    await composer.input.press("Backspace");
    await composer.input.pressSequentially("@src/gr");
    await expect(composer.mentionMenu).toHaveAttribute("data-query", "src/gr");
    await expect(composer.mentionOptions).toHaveText(["src/greet.ts"]);
    await composer.input.press("Tab");
    await expect(composer.input).toHaveValue("Explain @src/greet.ts ");
    await expect(composer.mentionMenu).toHaveCount(0);
    await composer.input.pressSequentially("please");
    await composer.input.press("Enter");
    await expect(composer.input).toHaveValue("");

    await expect(chat.lastAssistant).toContainText("greet says hello.");
    // Read from the session's workspace, where its tools read.
    const greet = await readFile(path.join(await seed.directory(session.id), "src", "greet.ts"), "utf8");
    const content = lastUserContent(fake);
    expect(content).toContainEqual({ type: "text", text: "Explain @src/greet.ts please" });
    expect(content).toContainEqual({ type: "text", text: `Called the read tool on src/greet.ts:\n${greet}` });
    await expect(chat.user("Explain @src/greet.ts please")).toContainText("src/greet.ts");
  });

  // `seed` registers the team's project, which a new session is made in.
  test("a new session has a readable title and offers starter prompts that fill the composer", async ({ page, seed: _seed }) => {
    const list = new SessionListPage(page);
    const view = new SessionPage(page);
    await list.goto();
    await list.createSession();
    await expect(view.title).toHaveText(/^New session - [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} UTC$/);

    const composer = new ComposerExtras(page);
    await expect(page.getByTestId("empty-session")).toContainText("No messages yet");
    await expect(composer.starterPrompts).not.toHaveCount(0);
    const first = composer.starterPrompts.filter({ hasText: "List the files and read README.md" });
    await first.click();
    await expect(composer.input).toHaveValue("List the files and read README.md");
    await expect(composer.input).toBeFocused();
    await composer.input.press("Enter");

    await expect(page.getByTestId("empty-session")).toHaveCount(0);
    await expect(page.locator('[data-testid="message"][data-role="assistant"]').last()).toContainText("Done — 2 tool calls", { timeout: 60_000 });
    // The generated title replaces the default one.
    await expect(view.title).not.toHaveText(/^New session - /);
  });
});
