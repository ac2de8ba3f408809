import type { Page } from "@playwright/test";
import { VERY_LONG_TOKENS, veryLongText } from "../server/provider/offline/text";
import { expect, test } from "./fixtures";
import { openChat } from "./pages/chat";

/**
 * A 10,000-token answer streamed into the chat keeps the page responsive and ends exact.
 * The offline model answers "write a very long answer" with about 10,000 tokens of
 * markdown (server/provider/offline/text.ts `veryLongText`: headings, lists, code, quotes,
 * tables) at its default pace (200 tokens per second: about 50 s). Chromium reports every
 * main-thread task over 50 ms as a `longtask` entry; none may occur while it streams.
 */

// Playwright's trace recording (retain-on-failure in playwright.config.ts) takes DOM
// snapshots and a screencast in the page's renderer while the test runs: long tasks of the
// harness, not of the app. The failure message below says what the app's long tasks were.
test.use({ trace: "off" });

const PROMPT = "write a very long answer";
/** Chromium reports tasks from 50 ms on; the check is that none is longer than that. */
const LONG_TASK_MS = 50;

interface LongTask {
  start: number;
  duration: number;
  /** What the long animation frame around it spent its time on (Chromium's LoAF entries), for the failure message. */
  frame?: string;
}

/** Chromium's long animation frame entry (not in TypeScript's DOM library yet). */
interface LongAnimationFrame extends PerformanceEntry {
  renderStart: number;
  scripts: Array<{ invoker: string; sourceURL: string; sourceCharPosition: number; duration: number }>;
}

declare global {
  interface Window {
    __longTasks?: LongTask[];
    __longFrames?: LongTask[];
  }
}

interface StoredPart {
  type: string;
  text?: string;
}
interface StoredMessage {
  info: { id: string; role: string; tokens?: { output: number; reasoning: number } };
  parts: StoredPart[];
}

/**
 * Starts recording long tasks. Called once the page has loaded, hydrated and shown the
 * idle chat, and after the main thread has been idle twice in a row, so that page load and
 * hydration are not counted: only what happens from here on (sending, streaming) is.
 */
async function recordLongTasks(page: Page): Promise<void> {
  await page.waitForLoadState("load");
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        requestIdleCallback(() => requestIdleCallback(() => resolve(), { timeout: 5_000 }), { timeout: 5_000 });
      }),
  );
  const supported = await page.evaluate(() => {
    if (!PerformanceObserver.supportedEntryTypes.includes("longtask")) return false;
    const tasks: LongTask[] = [];
    const frames: LongTask[] = [];
    window.__longTasks = tasks;
    window.__longFrames = frames;
    // Not buffered: entries from before this point (page load, hydration) are left out.
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push({ start: Math.round(entry.startTime), duration: Math.round(entry.duration) });
    }).observe({ type: "longtask" });
    if (PerformanceObserver.supportedEntryTypes.includes("long-animation-frame")) {
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as LongAnimationFrame[]) {
          const scripts = entry.scripts
            .filter((script) => script.duration >= 5)
            .map((script) => `${script.invoker} ${script.sourceURL.split("/").pop() ?? ""}:${script.sourceCharPosition} ${Math.round(script.duration)} ms`);
          const render = Math.round(entry.startTime + entry.duration - entry.renderStart);
          frames.push({ start: Math.round(entry.startTime), duration: Math.round(entry.duration), frame: `scripts [${scripts.join("; ")}], rendering ${render} ms` });
        }
      }).observe({ type: "long-animation-frame" });
    }
    return true;
  });
  expect(supported, "this browser reports no longtask entries").toBe(true);
}

/** The long tasks recorded so far, each with the long animation frame it was part of, if any. */
async function longTasks(page: Page): Promise<LongTask[]> {
  const { tasks, frames } = await page.evaluate(() => ({ tasks: window.__longTasks, frames: window.__longFrames ?? [] }));
  if (!tasks) throw new Error("recordLongTasks() was not called on this page");
  return tasks.map((task) => ({
    ...task,
    frame: frames.find((f) => f.start <= task.start + 1 && task.start + task.duration <= f.start + f.duration + 1)?.frame,
  }));
}

/**
 * Waits, without Playwright's `expect` polling, until the reply is complete and the session
 * idle: each `expect` poll also takes an accessibility snapshot of the page for its error
 * report, a main-thread task of its own that grows with the page (20 ms and more once the
 * answer is long) and would be counted against the app. This checks three attributes once
 * a second instead.
 */
async function waitForIdleReply(page: Page, timeout: number): Promise<void> {
  await page.waitForFunction(
    () => {
      const replies = document.querySelectorAll<HTMLElement>('[data-testid="message"][data-role="assistant"]');
      const status = document.querySelector<HTMLElement>('[data-testid="session-status"]');
      const stop = document.querySelector('[data-testid="stop-button"]');
      return replies[replies.length - 1]?.dataset.state === "done" && status?.dataset.status === "idle" && stop === null;
    },
    undefined,
    { timeout, polling: 1_000 },
  );
}

/** The session's messages as the app's tRPC endpoint returns them, with the page's cookies. */
async function storedMessages(page: Page, sessionId: string): Promise<StoredMessage[]> {
  const input = encodeURIComponent(JSON.stringify({ sessionId, limit: 50 }));
  const response = await page.request.get(`/api/trpc/message.page?input=${input}`);
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { result: { data: { messages: StoredMessage[] } } }).result.data.messages;
}

/** Where two texts first differ, with a little context, for a failure message. */
function difference(actual: string, expected: string): string {
  let at = 0;
  while (at < actual.length && at < expected.length && actual[at] === expected[at]) at++;
  if (at === actual.length && at === expected.length) return "the same";
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 40), at + 40));
  return `first difference at character ${at}: ${around(actual)} instead of ${around(expected)}`;
}

const normalize = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * What each line of the markdown shows once rendered: without block markers (#, -, 1., >),
 * emphasis and code-span backticks; a table row as its cells; fence lines and table
 * rules show nothing. Lines inside fenced code are shown as they are.
 */
function renderedLines(markdown: string): string[] {
  const lines: string[] = [];
  let inFence = false;
  for (const raw of markdown.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("```")) {
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      if (line) lines.push(normalize(line));
      continue;
    }
    if (line === "" || /^\|(?:\s*-+\s*\|)+$/.test(line)) continue;
    let shown = line.replace(/^#{1,6}\s+/, "").replace(/^>\s*/, "").replace(/^(?:[-*+]|\d+\.)\s+/, "");
    if (shown.startsWith("|")) shown = shown.split("|").map((cell) => cell.trim()).filter(Boolean).join(" ");
    lines.push(normalize(shown.replace(/\*\*|`/g, "")));
  }
  return lines;
}

/** The lines not found in `shown`, each looked for after the previous one (so order counts too). */
function missingInOrder(lines: string[], shown: string): string[] {
  const missing: string[] = [];
  let at = 0;
  for (const line of lines) {
    const found = shown.indexOf(line, at);
    if (found < 0) missing.push(line);
    else at = found + line.length;
  }
  return missing;
}

test("a 10,000-token answer streams with no main-thread task over 50 ms, and the text shown is exactly the text stored", async ({ page, seed, context }) => {
  // About 50 s of streaming at the offline model's default pace, plus the build's cold start.
  test.setTimeout(180_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const expected = veryLongText(PROMPT);
  const { session, chat } = await openChat(page, seed, "Very long answer");
  await recordLongTasks(page);

  await chat.ask(PROMPT);
  await waitForIdleReply(page, 150_000);
  // (a) No long task from sending to the end of the reply. Read before any `expect` polls the page.
  const tasks = await longTasks(page);
  const reply = chat.lastAssistant;
  await chat.waitIdle();

  const over = tasks.filter((task) => task.duration > LONG_TASK_MS);
  const report = over.map((t) => `${t.start} → ${t.duration}${t.frame ? ` (${t.frame})` : ""}`).join(", ");
  expect(over, `main-thread tasks over ${LONG_TASK_MS} ms (start → duration, ms): ${report}`).toEqual([]);

  // (b) The server stored exactly the offline model's answer…
  const messages = await storedMessages(page, session.id);
  const assistant = messages.filter((m) => m.info.role === "assistant");
  expect(assistant).toHaveLength(1);
  const texts = (assistant[0]?.parts ?? []).flatMap((p) => (p.type === "text" && p.text !== undefined ? [p.text] : []));
  expect(texts).toHaveLength(1);
  const stored = texts[0] ?? "";
  expect(stored === expected, `the stored text is the offline model's very long answer: ${difference(stored, expected)}`).toBe(true);
  const tokens = assistant[0]?.info.tokens;
  expect(Math.abs((tokens?.output ?? 0) + (tokens?.reasoning ?? 0) - VERY_LONG_TOKENS)).toBeLessThan(100);

  // …the chat holds exactly that text (Copy puts the message's raw markdown in the clipboard)…
  await reply.getByTestId("copy-message").click();
  await expect(reply.getByTestId("copy-message")).toHaveText("Copied");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied === stored, `the chat's copy of the text is the stored text: ${difference(copied, stored)}`).toBe(true);

  // …and shows all of it, in order: every line of the markdown, as rendered.
  const shown = normalize(await reply.locator('[data-part-type="text"]').innerText());
  const lines = renderedLines(stored);
  expect(lines.length).toBeGreaterThan(300);
  const missing = missingInOrder(lines, shown);
  expect(missing, `lines of the stored text not shown in order (${missing.length} of ${lines.length})`).toEqual([]);
});
