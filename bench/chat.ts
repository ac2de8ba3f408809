/**
 * npm run bench:chat [-- --messages 5000 --runs 7 --build]
 *
 * The chat on a very long session. Starts the app (production build, in its own data
 * directory and build directory `.next-bench`, built on first use or with --build), signs
 * up a user through the real endpoint, seeds one session of 5,000 messages into the app's
 * database, then prints:
 * - server time (in this process, no HTTP) of the newest page of messages and of
 *   loading the whole history and converting it with toModelMessages (median, p95);
 * - the browser's time to first render of the session in Chromium: from navigation start
 *   to the newest message appearing in the DOM (median, p95), with the steps before it
 *   (first byte, DOMContentLoaded, the newest page requested and received, the first
 *   row rendered), and how many message rows the page holds then.
 * Figures only; nothing is asserted.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { chromium, request } from "@playwright/test";
import { writeLongSession } from "../e2e/support/bulk";
import { type Db, createDb } from "../server/db/client";
import { startEmbeddedDatabase } from "../server/db/embedded";
import * as Id from "../server/id";
import { Session } from "../server/session";
import { type Context, withActor } from "../server/services";
import { benchServices } from "./database";
import { toModelMessages } from "../server/session/model-messages";
import { numberArg, runBench, samples } from "./figures";
import { freePort, startApp, stopApp, waitForServer } from "./app";

const MESSAGES = numberArg("messages", 5_000);
const BROWSER_RUNS = numberArg("runs", 7);
const SERVER_RUNS = 50;
const WARMUP = 5;
const SYSTEM_CHROMIUM = "/usr/bin/chromium";

const log = (line = "") => process.stdout.write(`${line}\n`);

interface Stats {
  median: number;
  p95: number;
  min: number;
  max: number;
}

function stats(times: number[]): Stats {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { median: at(0.5), p95: at(0.95), min: sorted[0] ?? Number.NaN, max: sorted.at(-1) ?? Number.NaN };
}

async function measure(runs: number, work: () => unknown): Promise<Stats> {
  return stats(await samples(runs, WARMUP, work));
}

/** The signed-up user's team and a project in it (the app's own project directory). */
async function teamProject(db: Db, userId: string, directory: string): Promise<{ teamId: string; projectId: string }> {
  const membership = await db.membership.findFirst({ where: { userId }, orderBy: { createdAt: "asc" } });
  if (!membership) throw new Error(`user ${userId} is in no team`);
  mkdirSync(directory, { recursive: true });
  const project = await db.project.upsert({
    where: { teamId_directory: { teamId: membership.teamId, directory } },
    create: { id: Id.ascending("project"), teamId: membership.teamId, name: "bench", directory },
    update: {},
  });
  return { teamId: membership.teamId, projectId: project.id };
}

function row(name: string, s: Stats): string {
  return `  ${name.padEnd(52)} ${s.median.toFixed(2).padStart(9)} ${s.p95.toFixed(2).padStart(9)} ${s.min.toFixed(2).padStart(9)} ${s.max.toFixed(2).padStart(9)}`;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "parley-bench-chat-"));
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const app = startApp(dataDir, port);
  let db: Db | undefined;
  let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
  try {
    await waitForServer(baseURL, app, 600_000);

    // A user, signed up through the app as the sign-up page does.
    const api = await request.newContext({ baseURL });
    const email = `bench-${Date.now().toString(36)}@bench.parley.test`;
    const res = await api.post("/api/auth/sign-up/email", { data: { email, name: "Bench", password: "bench password 1234" } });
    if (!res.ok()) throw new Error(`sign-up failed: ${res.status()} ${await res.text()}`);
    const userId = ((await res.json()) as { user: { id: string } }).user.id;
    const storageState = await api.storageState();
    await api.dispose();

    // The app's database: the embedded PostgreSQL it started (or DATABASE_URL).
    const url = process.env.DATABASE_URL ?? (await startEmbeddedDatabase({ dataDir })).url;
    db = createDb(url, { max: 4 });
    const { teamId, projectId } = await teamProject(db, userId, path.join(dataDir, "project"));
    const ctx: Context = withActor(await benchServices(db), { userId, teamId });
    const session = await Session.create(ctx, { projectId, title: `Benchmark: ${MESSAGES.toLocaleString("en")} messages` });
    const seedStart = performance.now();
    const long = await writeLongSession(db, session.id, MESSAGES);
    await db.$executeRawUnsafe('ANALYZE "Message", "Part"');
    log(`Seeded a session of ${MESSAGES.toLocaleString("en")} messages in ${((performance.now() - seedStart) / 1000).toFixed(1)} s.`);

    const newest = await Session.messages(ctx, session.id, { limit: 50 });
    if (newest.messages.length !== 50 || newest.messages.at(-1)?.info.id !== long.messageIds.at(-1)) throw new Error("unexpected newest page");
    const history = await Session.allMessages(ctx, session.id);
    if (history.length !== MESSAGES) throw new Error(`history has ${history.length} messages`);

    const server = [
      { name: "Session.messages, newest page (50 messages)", ...(await measure(SERVER_RUNS, () => Session.messages(ctx, session.id, { limit: 50 }))) },
      { name: `Session.allMessages (${MESSAGES.toLocaleString("en")} messages)`, ...(await measure(10, () => Session.allMessages(ctx, session.id))) },
      { name: `toModelMessages (${MESSAGES.toLocaleString("en")} messages)`, ...(await measure(20, () => toModelMessages(history))) },
    ];
    log(`\nServer time after ${WARMUP} warm-up runs (ms):`);
    log(`  ${"operation".padEnd(52)} ${"median".padStart(9)} ${"p95".padStart(9)} ${"min".padStart(9)} ${"max".padStart(9)}`);
    for (const r of server) log(row(r.name, r));

    // The browser: time from navigation start to the newest message in the DOM.
    browser = await chromium.launch({ executablePath: existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined });
    const context = await browser.newContext({ baseURL, storageState, viewport: { width: 1280, height: 900 } });
    const newestId = long.messageIds.at(-1) ?? "";
    // A string, not a function: the bundler's helpers around named functions do not exist in the page.
    await context.addInitScript({
      content: `(() => {
        const id = ${JSON.stringify(newestId)};
        const observer = new MutationObserver(() => {
          if (window.__firstRow === undefined && document.querySelector('[data-testid="message"]')) window.__firstRow = performance.now();
          if (window.__firstRender === undefined && document.querySelector('[data-message-id="' + id + '"]')) {
            window.__firstRender = performance.now();
            observer.disconnect();
          }
        });
        observer.observe(document, { childList: true, subtree: true });
      })();`,
    });
    const renders: number[] = [];
    let rows = 0;
    let ttfb: number[] = [];
    let dcl: number[] = [];
    let fetchedAt: number[] = [];
    let requestedAt: number[] = [];
    let firstRows: number[] = [];
    for (let run = 0; run <= BROWSER_RUNS; run++) {
      const page = await context.newPage();
      await page.goto(`/sessions/${session.id}`);
      await page.locator(`[data-message-id="${newestId}"]`).waitFor({ timeout: 60_000 });
      const timing = await page.evaluate(() => {
        const nav = window.performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
        const w = window as Window & { __firstRender?: number; __firstRow?: number };
        const page = window.performance
          .getEntriesByType("resource")
          .filter((entry) => entry.name.includes("/api/trpc/") && entry.name.includes("message.page"))
          .map((entry) => (entry as PerformanceResourceTiming).responseEnd);
        const requested = window.performance
          .getEntriesByType("resource")
          .filter((entry) => entry.name.includes("/api/trpc/") && entry.name.includes("message.page"))
          .map((entry) => entry.startTime);
        return {
          firstRender: w.__firstRender ?? Number.NaN,
          firstRow: w.__firstRow ?? Number.NaN,
          pageFetched: page.length ? Math.min(...page) : Number.NaN,
          pageRequested: requested.length ? Math.min(...requested) : Number.NaN,
          responseStart: nav?.responseStart ?? Number.NaN,
          domContentLoaded: nav?.domContentLoadedEventEnd ?? Number.NaN,
          rows: document.querySelectorAll('[data-testid="message"]').length,
        };
      });
      if (run > 0) {
        // The first load warms the server (route code, database caches).
        renders.push(timing.firstRender);
        ttfb.push(timing.responseStart);
        dcl.push(timing.domContentLoaded);
        fetchedAt.push(timing.pageFetched);
        requestedAt.push(timing.pageRequested);
        firstRows.push(timing.firstRow);
        rows = timing.rows;
      }
      await page.close();
    }
    ttfb = ttfb.filter(Number.isFinite);
    dcl = dcl.filter(Number.isFinite);
    fetchedAt = fetchedAt.filter(Number.isFinite);
    requestedAt = requestedAt.filter(Number.isFinite);
    firstRows = firstRows.filter(Number.isFinite);
    log(`\nBrowser (Chromium, ${BROWSER_RUNS} loads after 1 warm-up, ms from navigation start):`);
    log(`  ${"".padEnd(52)} ${"median".padStart(9)} ${"p95".padStart(9)} ${"min".padStart(9)} ${"max".padStart(9)}`);
    if (ttfb.length) log(row("first byte of the page", stats(ttfb)));
    if (dcl.length) log(row("DOMContentLoaded (scripts run, before data)", stats(dcl)));
    if (requestedAt.length) log(row("newest page requested (app hydrated)", stats(requestedAt)));
    if (fetchedAt.length) log(row("newest page received", stats(fetchedAt)));
    if (firstRows.length) log(row("first message row rendered", stats(firstRows)));
    log(row("newest message rendered", stats(renders)));
    log(`  message rows in the DOM then: ${rows} (of ${MESSAGES.toLocaleString("en")} in the session)`);
  } finally {
    await browser?.close();
    await db?.$disconnect();
    await stopApp(app);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
