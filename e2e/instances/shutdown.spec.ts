import type { Message } from "../../server/session/message";
import { SHUTDOWN_REASON } from "../../server/session/runner";
import { Chat } from "../pages/chat";
import { SessionPage } from "../pages/session-page";
import { expect, test } from "./fixtures";
import { counted, instanceOf, reply, tokens } from "./support/provider";
import { range, stored, textOf } from "./support/state";

/**
 * SIGTERM to an instance's launcher (what a process manager or a rolling deploy sends):
 * the launcher forwards it; the server refuses new work, lets running turns finish within
 * the grace period, stops the rest and hands what they leave over, then exits 0.
 */

const GRACE_MS = 3_000;

const completedAt = (info: Message | undefined) => (info?.role === "assistant" ? info.time.completed : undefined);

test("SIGTERM: A refuses new prompts, finishes a short turn, stops a long one at the grace period, hands its queued prompt to B, exits 0", async ({ cluster, browser }) => {
  await cluster.a.kill9();
  await cluster.a.start({ PARLEY_SHUTDOWN_GRACE_MS: String(GRACE_MS) });
  const short = await cluster.session("a", "Finishes within the grace period");
  const long = await cluster.session("a", "Outlasts the grace period");
  const refused = await cluster.session("a", "Sent while stopping");
  cluster.model.script(short.tag, counted(40, 50));
  cluster.model.script(long.tag, counted(1_000, 50), reply.text("Answered by B."));
  expect((await cluster.api("a").prompt(short.id, `short ${short.tag}`)).status).toBe(200);
  expect((await cluster.api("a").prompt(long.id, `long ${long.tag}`)).status).toBe(200);
  await expect.poll(() => cluster.model.requests(short.tag).length + cluster.model.requests(long.tag).length).toBe(2);
  // Sent to B while A runs the session: queued for A's runner.
  expect((await cluster.api("b").prompt(long.id, `and then ${long.tag}`)).status).toBe(200);
  // Someone working in a browser on A.
  const context = await cluster.browser(browser, "a");
  const page = await context.newPage();
  await new SessionPage(page).goto(refused.id);
  const chat = new Chat(page);

  const signalled = Date.now();
  cluster.a.terminate();
  // New work is refused at once, with when to try again.
  await expect.poll(async () => (await cluster.api("a").prompt(refused.id, `too late ${refused.tag}`)).status).toBe(503);
  const answer = await cluster.api("a").prompt(refused.id, `too late ${refused.tag}`);
  expect(answer.headers.get("retry-after")).toBe("2");
  expect(answer.error?.data?.parleyCode).toBe("UNAVAILABLE");
  expect(answer.error?.message).toContain("restarting");
  expect((await cluster.a.health()).body.status).toBe("draining");
  // The browser says so, and keeps what was typed.
  await chat.input.fill(`from the browser ${refused.tag}`);
  await chat.input.press("Enter");
  await expect(chat.error).toContainText("This server is restarting");
  await expect(chat.input).toHaveValue(`from the browser ${refused.tag}`);
  expect((await stored(cluster.db, refused.id)).messages).toHaveLength(0);
  await context.close();

  // The short turn finishes as if nothing happened.
  await expect.poll(async () => completedAt((await stored(cluster.db, short.id)).messages.at(-1)?.info), { timeout: GRACE_MS }).toBeDefined();
  const finished = (await stored(cluster.db, short.id)).messages.at(-1);
  expect(finished?.info.role === "assistant" && finished.info.error).toBeFalsy();
  expect(tokens(textOf(finished))).toEqual(range(40));

  // The long one is stopped once the grace period is over, saying why…
  await expect.poll(async () => completedAt((await stored(cluster.db, long.id)).messages.find((m) => m.info.role === "assistant")?.info), { timeout: GRACE_MS + 5_000 }).toBeDefined();
  const stopped = (await stored(cluster.db, long.id)).messages.find((m) => m.info.role === "assistant");
  expect(Date.now() - signalled).toBeGreaterThanOrEqual(GRACE_MS);
  expect(stopped?.info.role === "assistant" && stopped.info.error).toEqual({ name: "AbortedError", message: SHUTDOWN_REASON });
  expect(tokens(textOf(stopped)).length).toBeGreaterThan(0);

  // …and the prompt queued behind it is answered by B.
  await expect.poll(async () => textOf((await stored(cluster.db, long.id)).messages.at(-1)), { timeout: 15_000 }).toBe("Answered by B.");
  const handedOver = cluster.model.requests(long.tag)[1];
  expect(handedOver && instanceOf(handedOver)).toBe("b");

  // The launcher waited for the server (past the grace period) and exits cleanly.
  const exit = await cluster.a.exited();
  expect(exit).toMatchObject({ code: 0, signal: null });
  expect(exit.at - signalled).toBeGreaterThanOrEqual(GRACE_MS);
  expect(exit.at - signalled).toBeLessThan(GRACE_MS + 15_000);
});
