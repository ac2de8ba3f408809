import { reply } from "../test/fake-openai";
import { expect, test } from "./fixtures";
import { openChat } from "./pages/chat";
import { VISION_MODEL } from "./support/fake-provider";

/**
 * Issue 33, point 7: a failing provider (the fake OpenAI-compatible server answering 429 /
 * 503 with a long `retry-after`) is shown at once — the first failed attempt, its reason,
 * "Retrying in N s (attempt k of n)" — in one notice, the retry card, with "Retry now" (the
 * next attempt at once) and "Stop retrying" (the turn ends with the provider's error).
 */

const LONG_WAIT = { "retry-after": "120" };

test.describe("Retry now / Stop retrying", () => {
  test("the first failure shows at once in one notice; Retry now makes the next attempt without waiting", async ({ page, seed, fake }) => {
    test.setTimeout(60_000);
    const { chat } = await openChat(page, seed, "Retry now");
    await chat.chooseModel(VISION_MODEL);
    fake.enqueue(reply.error(429, { headers: LONG_WAIT, message: "Rate limit reached for e2e-vision", type: "requests" }), reply.text("Went through after Retry now."));
    await chat.record();
    const before = fake.requests.length;
    const asked = Date.now();
    await chat.ask("Say something");

    const card = chat.retryCard;
    await expect(card).toBeVisible({ timeout: 5_000 });
    expect(Date.now() - asked).toBeLessThan(5_000);
    await expect(card.getByTestId("retry-attempt")).toHaveText("Attempt 1 of 2 failed");
    await expect(card.getByTestId("retry-error")).toHaveText("Rate limit reached for e2e-vision");
    await expect(card).toContainText("HTTP 429");
    await expect(card.getByTestId("retry-next")).toHaveText(/^Retrying in 1[12]\d s \(attempt 2 of 2\)$/);
    await expect(chat.status).toHaveAttribute("data-status", "retry");

    await card.getByRole("button", { name: "Retry now" }).click();
    await expect(chat.lastAssistant).toContainText("Went through after Retry now.", { timeout: 10_000 });
    await chat.waitIdle();
    expect(Date.now() - asked).toBeLessThan(60_000);
    await expect(card.getByTestId("retry-next")).toHaveText("Attempt 2 went through.");
    await expect(card.getByRole("button")).toHaveCount(0);
    await expect(chat.lastAssistant.getByTestId("message-error")).toHaveCount(0);
    expect(fake.requests.length - before).toBe(2);
    expect((await chat.recording()).retryNotices).toBe(1);
  });

  test("Stop retrying ends the turn with the provider's error, without another attempt; after a reload the card says so", async ({ page, seed, fake }) => {
    test.setTimeout(60_000);
    const { chat } = await openChat(page, seed, "Stop retrying");
    await chat.chooseModel(VISION_MODEL);
    fake.enqueue(reply.error(503, { headers: LONG_WAIT, message: "The e2e provider is down" }));
    const before = fake.requests.length;
    await chat.ask("Say something");

    const card = chat.retryCard;
    await expect(card.getByTestId("retry-next")).toHaveText(/^Retrying in 1[12]\d s \(attempt 2 of 2\)$/, { timeout: 5_000 });
    await card.getByRole("button", { name: "Stop retrying" }).click();

    const error = chat.lastAssistant.getByTestId("message-error");
    await expect(error).toHaveAttribute("data-error-name", "APIError", { timeout: 10_000 });
    await expect(error).toContainText("HTTP 503");
    await expect(error).toContainText("The e2e provider is down");
    await chat.waitIdle();
    await expect(card.getByTestId("retry-next")).toHaveText("Retrying was stopped after 1 attempt.");
    await expect(card.getByRole("button")).toHaveCount(0);
    expect(fake.requests.length - before).toBe(1);

    await page.reload();
    await expect(chat.retryCard.getByTestId("retry-next")).toHaveText("Retrying was stopped after 1 attempt.");
    await expect(chat.lastAssistant.getByTestId("message-error")).toHaveAttribute("data-error-name", "APIError");
  });
});
