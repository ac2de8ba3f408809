import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { SessionPage } from "./pages/session-page";
import { SharePage } from "./pages/share-page";
import { seedSampleChat } from "./support/sample-chat";

/**
 * How much JavaScript a page costs, as the browser receives it from the production server
 * (compressed bytes, from the Resource Timing API): a share page's viewer gets at most
 * 150 kB, a member's session page at most 250 kB. A share page's content (markdown and
 * highlighted code included) is rendered on the server, so everything it loads counts; a
 * session page loads its markdown stack and each highlight.js grammar on demand once its
 * messages arrive — its first JavaScript (everything requested before the load event)
 * counts, and what it loads on demand afterwards is reported. The sample conversation has
 * markdown, a TypeScript block, a table, reasoning and two tool cards.
 */

const SHARE_BUDGET = 150 * 1024;
const SESSION_BUDGET = 250 * 1024;

interface Weight {
  /** Compressed bytes of the scripts requested before the load event. */
  initial: number;
  /** Compressed bytes of every script loaded so far. */
  total: number;
  scripts: { name: string; bytes: number; initial: boolean }[];
}

async function scriptWeight(page: Page): Promise<Weight> {
  return page.evaluate(() => {
    const navigation = performance.getEntriesByType("navigation")[0];
    const loaded = navigation instanceof PerformanceNavigationTiming ? navigation.loadEventStart : 0;
    const scripts = performance
      .getEntriesByType("resource")
      .filter((entry): entry is PerformanceResourceTiming => entry instanceof PerformanceResourceTiming)
      .filter((entry) => new URL(entry.name).pathname.endsWith(".js"))
      .map((entry) => ({ name: new URL(entry.name).pathname, bytes: entry.encodedBodySize, initial: entry.startTime < loaded }));
    const sum = (list: { bytes: number }[]) => list.reduce((total, s) => total + s.bytes, 0);
    return { initial: sum(scripts.filter((s) => s.initial)), total: sum(scripts), scripts };
  });
}

function kB(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} kB`;
}

function report(label: string, weight: Weight): void {
  console.log(`${label}: ${kB(weight.initial)} first, ${kB(weight.total)} in all (compressed)`);
  for (const s of [...weight.scripts].sort((a, b) => b.bytes - a.bytes)) console.log(`  ${s.initial ? "first    " : "on demand"} ${kB(s.bytes).padStart(9)}  ${s.name}`);
}

test("a share page loads at most 150 kB of JavaScript and a session page at most 250 kB (compressed)", async ({ page, browser, seed }) => {
  const { session, sharePath } = await seedSampleChat(seed, `Weight ${Date.now().toString(36)}`, { share: true });
  if (!sharePath) throw new Error("not shared");

  // The share page, as someone with only the link: everything it loads, live stream open.
  const viewerPage = await (await browser.newContext()).newPage();
  const viewer = new SharePage(viewerPage);
  await viewer.goto(sharePath);
  await expect(viewer.part("text").locator("code.hljs").first()).toBeVisible();
  await viewerPage.waitForLoadState("networkidle");
  const share = await scriptWeight(viewerPage);
  report("share page", share);
  expect(share.scripts.length).toBeGreaterThan(0);
  expect(share.scripts.every((s) => s.bytes > 0), "every script's size is known (same origin, compressed)").toBe(true);
  expect(share.total, "share page JavaScript").toBeLessThanOrEqual(SHARE_BUDGET);

  // The member's session page, conversation shown and highlighted.
  const member = new SessionPage(page);
  await member.goto(session.id);
  await expect(member.part("text").locator("code.hljs").first()).toBeVisible();
  await page.waitForLoadState("networkidle");
  const chat = await scriptWeight(page);
  report("session page", chat);
  expect(chat.initial, "session page JavaScript before the load event").toBeLessThanOrEqual(SESSION_BUDGET);
  // What it loaded on demand (the markdown stack, the TypeScript grammar) came after.
  expect(chat.total).toBeGreaterThan(chat.initial);
});
