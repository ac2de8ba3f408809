import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";
import { Session } from "../server/session";
import { expect, test } from "./fixtures";
import { openChat } from "./pages/chat";
import { SessionPage } from "./pages/session-page";
import { E2E_PROJECT_DIR, type Seeder } from "./support/seed";

/**
 * The chat against the built-in offline model, which streams deterministic answers from
 * plain-English requests (server/provider/offline/parse.ts). "stream slowly" paces it at
 * 12 tokens per second, so that every state can be watched; the page recorder
 * (pages/chat.ts) sees each state React commits, so nothing depends on polling speed.
 */

const OFFLINE_LABEL = "Offline model (built in, no network)";
const FORWARD = ["pending", "running", "completed"];

const open = openChat;

/** Every part on the page: id, type, tool status, and the text of text parts. */
function partsOnPage(page: Page) {
  return page.locator("[data-part-id]").evaluateAll((elements) =>
    elements.map((el) => {
      const data = (el as HTMLElement).dataset;
      return { id: data.partId, type: data.partType, status: data.toolStatus, text: data.partType === "text" ? el.textContent : undefined };
    }),
  );
}

async function storedTexts(seed: Seeder, sessionId: string, messageId: string): Promise<string[]> {
  const page = await Session.messages(seed.ctx, sessionId);
  const message = page.messages.find((m) => m.info.id === messageId);
  return (message?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : []));
}

test.describe("chat with the agent", () => {
  test("a request streams reasoning, text and tool cards live, writes the file, and all of it survives a reload", async ({ page, seed }) => {
    test.setTimeout(150_000);
    const { session, chat } = await open(page, seed, "Tools");
    const file = `notes-${Date.now().toString(36)}.txt`;
    await chat.record();
    await chat.ask(`Stream slowly and list files and read README.md then write ${file}: hello from the chat test`);

    await expect(chat.user("hello from the chat test")).toBeVisible();
    await expect(chat.stop).toBeVisible();
    await expect(chat.lastAssistant).toContainText("Done — 3 tool calls", { timeout: 120_000 });
    await chat.waitIdle();

    const recording = await chat.recording();
    // Three tools, each seen first as pending and then only moving forward to completed.
    const tools = Object.values(recording.tools);
    expect(tools).toHaveLength(3);
    for (const states of tools) {
      expect(states[0]).toBe("pending");
      expect(states.at(-1)).toBe("completed");
      expect(states.map((s) => FORWARD.indexOf(s))).toEqual([...states.map((s) => FORWARD.indexOf(s))].sort());
    }
    // Reasoning, text and tools of the replies all appeared while the agent was working.
    const replyParts = Object.values(recording.firstSeen).filter((p) => p.role === "assistant" && ["reasoning", "text", "tool"].includes(p.type));
    for (const type of ["reasoning", "text", "tool"]) expect(replyParts.filter((p) => p.type === type).length).toBeGreaterThan(0);
    expect(replyParts.every((p) => p.status === "busy")).toBe(true);
    // Text arrived in pieces, not at once.
    expect(Math.max(...Object.values(recording.texts).map((t) => t.length))).toBeGreaterThan(3);
    expect(recording.statuses).toEqual(["idle", "busy", "idle"]);

    // Written in the session's own workspace, not the project's folder.
    expect(await readFile(path.join(await seed.directory(session.id), file), "utf8")).toBe("hello from the chat test\n");
    expect(existsSync(path.join(E2E_PROJECT_DIR, file))).toBe(false);
    const stored = (await Session.messages(seed.ctx, session.id)).messages.flatMap((m) => m.parts);
    const storedTools = stored.flatMap((p) => (p.type === "tool" ? [p] : []));
    expect(storedTools.map((p) => [p.id, p.tool, p.state.status])).toEqual(
      Object.keys(recording.tools).map((id, i) => [id, ["list", "read", "write"][i], "completed"]),
    );

    // After a reload every part shown is as it was (the list may render only part of the
    // conversation, so parts are compared by id), and the final answer is there.
    const before = new Map((await partsOnPage(page)).map((p) => [p.id, p]));
    await page.reload();
    await expect(chat.lastAssistant).toContainText("Done — 3 tool calls");
    const after = await partsOnPage(page);
    expect(after.length).toBeGreaterThan(0);
    for (const part of after) expect(part).toEqual(before.get(part.id));
    await expect(chat.status).toHaveAttribute("data-status", "idle");
  });

  test("Stop ends the reply: the message shows it was stopped, its open tool is aborted, the session is idle", async ({ page, seed }) => {
    test.setTimeout(90_000);
    const { session, chat } = await open(page, seed, "Stop");
    const file = `stopped-${Date.now().toString(36)}.txt`;
    const words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu";
    await chat.ask(`Stream slowly and write ${file}: ${words}`);

    // The write call's input is still streaming (several seconds at this pace) when Stop is pressed.
    await expect(chat.tools(chat.lastAssistant, "pending")).toBeVisible({ timeout: 30_000 });
    await chat.stop.click();

    const reply = chat.lastAssistant;
    const error = reply.getByTestId("message-error");
    await expect(error).toHaveAttribute("data-error-name", "AbortedError");
    await expect(error).toHaveAttribute("data-error-kind", "aborted");
    await expect(error).toContainText("Stopped");
    const tool = chat.tools(reply);
    await expect(tool).toHaveAttribute("data-tool-status", "error");
    await expect(tool.getByTestId("tool-status")).toHaveText("Aborted");
    await expect(tool.getByTestId("tool-error")).toHaveText("Tool execution aborted");
    await chat.waitIdle();
    expect(existsSync(path.join(await seed.directory(session.id), file))).toBe(false);

    await page.reload();
    await expect(chat.lastAssistant.getByTestId("message-error")).toContainText("Stopped");
    await expect(chat.tools(chat.lastAssistant).getByTestId("tool-status")).toHaveText("Aborted");
    await expect(chat.status).toHaveAttribute("data-status", "idle");
    await expect(chat.stop).toHaveCount(0);
  });

  test("a reload mid-stream shows the text so far, then keeps streaming it without duplicates", async ({ page, seed }) => {
    test.setTimeout(90_000);
    const { session, chat } = await open(page, seed, "Reload");
    await chat.ask("stream slowly");
    const text = chat.part(chat.lastAssistant, "text");
    await expect.poll(async () => (await text.textContent())?.length ?? 0, { timeout: 30_000 }).toBeGreaterThan(60);
    const shown = (await text.textContent()) ?? "";
    const partId = await text.getAttribute("data-part-id");
    const messageId = await chat.lastAssistant.getAttribute("data-message-id");

    await page.reload();
    await chat.record();
    await expect(text).toBeVisible();
    const afterReload = (await text.textContent()) ?? "";
    expect(afterReload.startsWith(shown)).toBe(true);
    await expect(chat.stop).toBeVisible();
    await chat.waitIdle();

    const final = (await text.textContent()) ?? "";
    expect(messageId).not.toBeNull();
    expect(await storedTexts(seed, session.id, messageId ?? "")).toEqual([final]);
    // It went on growing after the reload, every state a prefix of the final text (nothing doubled).
    const seen = (await chat.recording()).texts[partId ?? ""] ?? [];
    expect(seen.length).toBeGreaterThan(1);
    expect(final.length).toBeGreaterThan(afterReload.length);
    for (const state of seen) expect(final.startsWith(state)).toBe(true);
    await expect(chat.assistants).toHaveCount(1);
    await expect(chat.part(chat.lastAssistant, "text")).toHaveCount(1);
  });

  test("a failed model call shows one retry notice (the card) with its countdown at once, then the reply completes", async ({ page, seed }) => {
    test.setTimeout(60_000);
    const { chat } = await open(page, seed, "Retry");
    await chat.record();
    await chat.ask("fail once with 429");
    await expect(chat.lastAssistant).toContainText("This attempt went through", { timeout: 30_000 });
    await chat.waitIdle();

    const recording = await chat.recording();
    // busy → retry can be quicker than a render (the 429 comes before any stream), so "busy" may not show first.
    expect(recording.statuses[0]).toBe("idle");
    expect(recording.statuses).toContain("retry");
    expect(recording.statuses.at(-1)).toBe("idle");
    // One notice counting down, never two (the composer shows none of its own).
    expect(recording.retryNotices).toBe(1);
    expect(recording.retryCards.length).toBeGreaterThan(0);
    for (const text of recording.retryCards) {
      expect(text).toMatch(/^(Retrying \(attempt 2 of 2\)…|Retrying in 1 s \(attempt 2 of 2\)|Retrying now \(attempt 2 of 2\)…|Attempt 2 went through\.)$/);
    }
    expect(recording.retryCards).toContain("Retrying in 1 s (attempt 2 of 2)");
    await expect(chat.part(chat.lastAssistant, "retry")).toHaveCount(1);
    await expect(chat.part(chat.lastAssistant, "retry")).toContainText("HTTP 429");
    await expect(chat.part(chat.lastAssistant, "retry")).toContainText("Rate limit reached for parley-offline");
    await expect(chat.retryCard.getByTestId("retry-next")).toHaveText("Attempt 2 went through.");
    await expect(chat.retryCard.getByRole("button")).toHaveCount(0);
  });

  test("a message sent while the agent works is queued, then answered", async ({ page, seed }) => {
    test.setTimeout(90_000);
    const { chat } = await open(page, seed, "Queue");
    await chat.ask("stream slowly");
    await expect(chat.part(chat.lastAssistant, "text")).toBeVisible({ timeout: 30_000 });
    await expect(chat.stop).toBeVisible();
    await expect(chat.send).toBeDisabled();

    await chat.ask("list files");
    const queued = chat.user("list files");
    await expect(queued.getByTestId("queued-badge")).toHaveText("Queued");
    await expect(chat.user("stream slowly").getByTestId("queued-badge")).toHaveCount(0);

    await expect(chat.lastAssistant).toContainText("Done — 1 tool call", { timeout: 60_000 });
    await chat.waitIdle();
    await expect(queued.getByTestId("queued-badge")).toHaveCount(0);
    const list = chat.tools(page.locator("body"), "completed").filter({ has: page.getByTestId("tool-name").getByText("list", { exact: true }) });
    await expect(list).toHaveCount(1);
    await expect(list).toContainText("README.md");
  });

  test("a queued message can be cancelled before the agent reads it: it is gone and never answered", async ({ page, seed }) => {
    test.setTimeout(90_000);
    const { chat } = await open(page, seed, "Cancel queued");
    await chat.ask("stream slowly");
    await expect(chat.part(chat.lastAssistant, "text")).toBeVisible({ timeout: 30_000 });
    await chat.ask("list files");
    const queued = chat.user("list files");
    await expect(queued.getByTestId("queued-badge")).toHaveText("Queued");
    await queued.getByRole("button", { name: "Cancel" }).click();
    await expect(queued).toHaveCount(0);
    await chat.waitIdle();
    // The running reply ended without reading it: no tool call, and it stays gone after a reload.
    await expect(page.getByText("Done — 1 tool call")).toHaveCount(0);
    await page.reload();
    await expect(chat.user("stream slowly")).toBeVisible();
    await expect(chat.user("list files")).toHaveCount(0);
  });

  test("Enter sends and Shift+Enter breaks the line; empty and oversize messages are not sent; the model picker labels the offline model", async ({ page, seed }) => {
    test.setTimeout(60_000);
    const { chat } = await open(page, seed, "Composer");
    await expect(chat.send).toBeDisabled();
    await chat.input.fill("   ");
    await expect(chat.send).toBeDisabled();
    await chat.input.press("Enter");
    await expect(chat.messages).toHaveCount(0);

    await expect(chat.modelPicker.locator("option:checked")).toHaveText(OFFLINE_LABEL);
    await expect(page.getByTestId("offline-badge")).toHaveText(/^offline$/i);

    await chat.input.fill("");
    await chat.input.pressSequentially("line one");
    await chat.input.press("Shift+Enter");
    await chat.input.pressSequentially("line two");
    await expect(chat.input).toHaveValue("line one\nline two");
    await expect(chat.messages).toHaveCount(0);
    await chat.input.press("Enter");
    await expect(chat.input).toHaveValue("");
    await expect(chat.user("line one")).toContainText("line two");
    // The chosen model answered.
    await expect(chat.lastAssistant.getByTestId("message-model")).toHaveText("offline/parley-offline");
    await chat.waitIdle();

    // Too long for the server: the reason is shown and the text is kept.
    const long = "x".repeat(100_001);
    await chat.input.fill(long);
    await chat.input.press("Enter");
    await expect(chat.error).toContainText("a message is limited to 100000 characters");
    expect(await chat.input.inputValue()).toBe(long);
    await expect(chat.messages).toHaveCount(2);

    // The choice is remembered for the session.
    await page.reload();
    await expect(chat.modelPicker.locator("option:checked")).toHaveText(OFFLINE_LABEL);
  });

  test("code blocks are highlighted without rendering HTML, and each kind of reply error is explained", async ({ page, seed }) => {
    const session = await seed.session({ title: `Rendering ${Date.now().toString(36)}` });
    const now = Date.now();
    const ask = await seed.userMessage(session.id, [{ type: "text", text: "Show me some code.", time: { start: now, end: now } }]);
    const code = "Here:\n\n```ts\nconst answer: number = 42; // the answer\n```\n\n```\n<script>window.__parleyCode = 1</script><b>bold</b>\n```";
    await seed.assistantMessage(session.id, ask.id, [{ type: "text", text: code, time: { start: now, end: now } }]);
    await seed.assistantMessage(session.id, ask.id, [], {
      error: { name: "APIError", message: "Rate limit reached.", statusCode: 429, isRetryable: true, responseBody: '{"error":"rate_limit"}' },
    });
    await seed.assistantMessage(session.id, ask.id, [], { error: { name: "ContextOverflowError", message: "The conversation is too long for this model." } });
    await seed.assistantMessage(session.id, ask.id, [], { error: { name: "AbortedError", message: "Interrupted: the server stopped while this reply was being written." } });
    await seed.assistantMessage(session.id, ask.id, [], { error: { name: "AbortedError", message: "Aborted by the user" } });

    const view = new SessionPage(page);
    await view.goto(session.id);
    const ts = page.locator("pre code.language-ts");
    await expect(ts.locator(".hljs-keyword")).toHaveText("const");
    await expect(ts.locator(".hljs-number")).toHaveText("42");
    await expect(ts.locator(".hljs-comment")).toHaveText("// the answer");
    await expect(ts).toHaveText("const answer: number = 42; // the answer");
    // The coloured spans really get colours.
    expect(await ts.locator(".hljs-keyword").evaluate((el) => getComputedStyle(el).color)).not.toBe(await ts.evaluate((el) => getComputedStyle(el).color));
    const plain = page.locator("pre code").filter({ hasText: "__parleyCode" });
    await expect(plain).toHaveText("<script>window.__parleyCode = 1</script><b>bold</b>");
    await expect(plain.locator("script, b, span")).toHaveCount(0);
    expect(await page.evaluate(() => (window as Window & { __parleyCode?: number }).__parleyCode)).toBeUndefined();

    await expect(page.locator('[data-testid="message-error"][data-error-kind="api"]')).toContainText("Provider API error (HTTP 429)");
    await expect(page.locator('[data-testid="message-error"][data-error-kind="api"]')).toContainText("Rate limit reached.");
    await expect(page.locator('[data-testid="message-error"][data-error-kind="context-overflow"]')).toContainText("Context window exceeded");
    await expect(page.locator('[data-testid="message-error"][data-error-kind="interrupted"]')).toContainText("Interrupted");
    await expect(page.locator('[data-testid="message-error"][data-error-kind="aborted"]')).toContainText("Stopped");
  });
});
