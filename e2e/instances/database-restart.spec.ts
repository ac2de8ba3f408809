import type { Page } from "@playwright/test";
import { SessionPage } from "../pages/session-page";
import { expect, test } from "./fixtures";
import { counted } from "./support/provider";
import { range, settled, stored, textOf } from "./support/state";

/**
 * PostgreSQL stopped and started again under both instances (same data directory, same
 * port): their pools, event bridges and run-lock connections reconnect, every browser's
 * live stream is restarted and reads the stored state again, and from then on events
 * cross between the instances as before.
 */

/** The texts of the assistant's text parts a page shows, in order. */
function answers(page: Page): Promise<string[]> {
  return page.locator('[data-testid="message"][data-role="assistant"] [data-part-type="text"]').allTextContents();
}

test("PostgreSQL restarted under both instances: they reconnect, browsers resync, nothing is lost", async ({ cluster, browser }) => {
  test.skip(!cluster.pg.restartable, `${cluster.pg.description} cannot be restarted by the suite`);
  const { id, tag } = await cluster.session("a", "Through a restart");
  cluster.model.script(tag, counted(10, 0), counted(30, 20));
  expect((await cluster.api("a").prompt(id, `before ${tag}`)).status).toBe(200);
  await expect.poll(async () => settled(await stored(cluster.db, id))).toBe(true);
  // A turn still streaming on B when the database goes away.
  const cut = await cluster.session("b", "Cut by the restart");
  cluster.model.script(cut.tag, counted(3_000, 10));
  expect((await cluster.api("b").prompt(cut.id, `stream ${cut.tag}`)).status).toBe(200);

  const contexts = await Promise.all([cluster.browser(browser, "a"), cluster.browser(browser, "b")]);
  const pages = await Promise.all(contexts.map((c) => c.newPage()));
  const [onA, onB] = pages as [Page, Page];
  const views = [new SessionPage(onA), new SessionPage(onB)];
  for (const view of views) await view.goto(id);
  const watching = new SessionPage(await contexts[0]!.newPage());
  await watching.goto(cut.id);
  for (const page of pages) await expect.poll(() => answers(page)).toEqual([range(10).join(" ")]);
  await expect(watching.part("text").last()).toContainText("10 11 12");

  await cluster.pg.stop();
  for (const instance of [cluster.a, cluster.b]) {
    await expect.poll(async () => (await instance.health()).status).toBe(503);
    expect((await instance.health()).body.checks.database?.ok).toBe(false);
  }
  await cluster.pg.start();
  for (const instance of [cluster.a, cluster.b]) {
    await expect.poll(async () => (await instance.health()).status, { timeout: 30_000 }).toBe(200);
  }

  // After the restart: a prompt on A and a rename on B reach both browsers.
  expect((await cluster.api("a").prompt(id, `after ${tag}`)).status).toBe(200);
  const title = `Renamed after the restart ${tag}`;
  await cluster.api("b").data("session.update", { sessionId: id, patch: { title } });
  await expect.poll(async () => settled(await stored(cluster.db, id)), { timeout: 20_000 }).toBe(true);
  const expected = [range(10).join(" "), range(30).join(" ")];
  for (const [i, page] of pages.entries()) {
    await expect(views[i]!.title).toHaveText(title);
    await expect.poll(() => answers(page)).toEqual(expected);
  }

  // The cut turn was closed (by its runner, or by recovery); the page shows exactly what is stored.
  await expect.poll(async () => (await stored(cluster.db, cut.id)).status, { timeout: 20_000 }).toBe("idle");
  const cutState = await stored(cluster.db, cut.id);
  const storedText = textOf(cutState.messages.at(-1)).trim();
  expect(storedText.length).toBeGreaterThan(0);
  await expect.poll(async () => (await answers(watching.page)).map((t) => t.trim())).toEqual([storedText]);
  for (const context of contexts) await context.close();
});
