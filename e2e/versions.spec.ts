import AxeBuilder from "@axe-core/playwright";
import { existsSync, readFileSync } from "node:fs";
import { type FakeReply, reply, toolCallSteps } from "../test/fake-openai";
import { expect, test } from "./fixtures";
import { type Chat, openChatInFolder } from "./pages/chat";
import { VISION_MODEL } from "./support/fake-provider";

/**
 * Versions of a turn (issue 33): a regenerate and an edit & resend keep the earlier
 * version reachable through "‹ 1/2 ›" on the turn's message — its text and its files in
 * the session's workspace come back — and a revert puts the prompt it took back in the
 * composer.
 */

/** The turn of the user message `text` answered: a reply after it, done, and the session idle. */
async function settle(chat: Chat, text: string) {
  await expect(chat.user(text)).toHaveCount(1);
  const userId = (await chat.user(text).getAttribute("data-message-id")) ?? "";
  await expect.poll(async () => ((await chat.lastAssistant.getAttribute("data-message-id")) ?? "") > userId, { timeout: 30_000 }).toBe(true);
  await expect(chat.lastAssistant).toHaveAttribute("data-state", "done", { timeout: 30_000 });
  await chat.waitIdle();
}

async function turn(chat: Chat, text: string) {
  await chat.ask(text);
  await settle(chat, text);
}

const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : undefined);

/** The fake model's turn: write `content` to `filePath`, then say `answer`. */
const writes = (filePath: string, content: string, answer: string): FakeReply[] => [
  reply.stream([
    ...toolCallSteps({ id: `call-${answer}`, name: "write", pieces: [JSON.stringify({ filePath, content })] }),
    { kind: "finish", reason: "tool_calls" },
    { kind: "usage", usage: { prompt: 10, completion: 5 } },
  ]),
  reply.text(answer),
];

test.describe("versions of a turn", () => {
  test("a regenerate keeps version 1/2 reachable with its text and files", async ({ page, seed, fake }) => {
    test.setTimeout(90_000);
    const { chat, folder, file } = await openChatInFolder(page, seed, "Regenerate versions", "versions");
    await chat.modelPicker.selectOption(VISION_MODEL.key);
    fake.enqueue(...writes(`${folder}/v.txt`, "one\n", "First answer"), ...writes(`${folder}/v.txt`, "two\n", "Second answer"));
    const prompt = "write the version file";
    await turn(chat, prompt);
    await expect(chat.lastAssistant).toContainText("First answer");
    expect(read(file("v.txt"))).toBe("one\n");
    await expect(chat.user(prompt).getByTestId("version-switcher")).toHaveCount(0);

    await chat.lastAssistant.getByTestId("regenerate-reply").click();
    await expect(chat.lastAssistant).toContainText("Second answer", { timeout: 30_000 });
    await settle(chat, prompt);
    expect(read(file("v.txt"))).toBe("two\n");
    const switcher = chat.user(prompt).getByTestId("version-switcher");
    await expect(switcher.getByTestId("version-position")).toHaveText("2/2");
    await expect(switcher.getByTestId("version-next")).toBeDisabled();

    // Version 1: its reply and its file come back.
    await switcher.getByTestId("version-previous").click();
    await expect(switcher.getByTestId("version-position")).toHaveText("1/2");
    await expect(page.getByText("First answer")).toHaveCount(1);
    await expect(page.getByText("Second answer")).toHaveCount(0);
    await expect.poll(() => read(file("v.txt"))).toBe("one\n");

    // And version 2 again.
    await switcher.getByTestId("version-next").click();
    await expect(switcher.getByTestId("version-position")).toHaveText("2/2");
    await expect(page.getByText("Second answer")).toHaveCount(1);
    await expect(page.getByText("First answer")).toHaveCount(0);
    await expect.poll(() => read(file("v.txt"))).toBe("two\n");

    // A reload shows the same current version.
    await page.reload();
    await expect(chat.user(prompt).getByTestId("version-position")).toHaveText("2/2");
    await expect(page.getByText("Second answer")).toHaveCount(1);
  });

  test("an edit & resend keeps the first prompt as version 1/2, with its reply and files", async ({ page, seed }) => {
    test.setTimeout(90_000);
    const { chat, folder, file } = await openChatInFolder(page, seed, "Edit versions", "versions");
    const first = `write 'first' to ${folder}/e.txt`;
    await turn(chat, first);
    expect(read(file("e.txt"))).toBe("first\n");

    await chat.user(first).getByTestId("edit-message").click();
    const edited = `write 'second' to ${folder}/f.txt`;
    await page.getByTestId("edit-message-input").fill(edited);
    await page.getByTestId("edit-message-send").click();
    await expect(chat.user(edited)).toHaveCount(1);
    await settle(chat, edited);
    await expect.poll(() => read(file("f.txt"))).toBe("second\n");
    expect(read(file("e.txt"))).toBeUndefined();
    await expect(chat.user(edited).getByTestId("version-position")).toHaveText("2/2");

    await chat.user(edited).getByTestId("version-previous").click();
    await expect(chat.user(first)).toHaveCount(1);
    await expect(chat.user(edited)).toHaveCount(0);
    await expect(chat.user(first).getByTestId("version-position")).toHaveText("1/2");
    await expect.poll(() => read(file("e.txt"))).toBe("first\n");
    expect(read(file("f.txt"))).toBeUndefined();

    await chat.user(first).getByTestId("version-next").click();
    await expect(chat.user(edited)).toHaveCount(1);
    await expect.poll(() => read(file("f.txt"))).toBe("second\n");
    expect(read(file("e.txt"))).toBeUndefined();

    // The switcher passes axe in both themes.
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await expect(chat.user(edited).getByTestId("version-position")).toHaveText("2/2");
      const results = await new AxeBuilder({ page }).include('[data-testid="version-switcher"]').analyze();
      expect(results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id), colorScheme).toEqual([]);
    }
  });

  test("a revert puts the reverted prompt back in the composer, unless a draft is being typed", async ({ page, seed }) => {
    test.setTimeout(90_000);
    const { chat, folder } = await openChatInFolder(page, seed, "Revert to composer", "versions");
    await turn(chat, `write 'one' to ${folder}/a.txt`);
    const second = `write 'two' to ${folder}/b.txt`;
    await turn(chat, second);

    // A draft being typed stays.
    await chat.input.fill("my own draft");
    await chat.user(second).getByTestId("revert-message").click();
    await expect(page.getByTestId("revert-banner")).toBeVisible();
    await expect(chat.input).toHaveValue("my own draft");
    await page.getByTestId("unrevert").click();
    await expect(page.getByTestId("revert-banner")).toHaveCount(0);

    // With an empty composer, the prompt comes back to be changed and sent again.
    await chat.input.fill("");
    await chat.user(second).getByTestId("revert-message").click();
    await expect(page.getByTestId("revert-banner")).toBeVisible();
    await expect(chat.input).toHaveValue(second);
    await expect(chat.user(second)).toHaveCount(0);
  });
});

test.describe("versions of a turn on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 });

  test("the switcher fits beside the message's actions and a tap switches the version", async ({ page, seed }) => {
    test.setTimeout(90_000);
    const { chat } = await openChatInFolder(page, seed, "Phone versions", "versions");
    const first = "say hello";
    await turn(chat, first);
    await chat.user(first).getByTestId("edit-message").tap();
    const edited = "say hello again";
    await page.getByTestId("edit-message-input").fill(edited);
    await page.getByTestId("edit-message-send").tap();
    await settle(chat, edited);
    const switcher = chat.user(edited).getByTestId("version-switcher");
    await expect(switcher.getByTestId("version-position")).toHaveText("2/2");
    const box = await switcher.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await switcher.getByTestId("version-previous").tap();
    await expect(chat.user(first).getByTestId("version-position")).toHaveText("1/2");
    await expect(chat.user(edited)).toHaveCount(0);
  });
});
