import { SharePage } from "../pages/share-page";
import { expect, test } from "./fixtures";
import { counted, instanceOf, tokens } from "./support/provider";
import { range, ranAndStopped, settled, stored, textDeltas, textOf } from "./support/state";

/**
 * Streamed text crosses from the instance running a session to clients of the other one:
 * A's runner publishes each delta, A's bridge sends it compactly through PostgreSQL
 * (NOTIFY), B delivers it to its live streams.
 */

test("an SSE client on B receives every delta of a session running on A, in order, exactly once", async ({ cluster }) => {
  const { id, tag } = await cluster.session("a", "Across instances");
  const n = 300;
  cluster.model.script(tag, counted(n, 5));
  const live = await cluster.api("b").live(`/api/sessions/${id}/events`);
  await expect.poll(() => live.events.some((e) => e.name === "stream.ready")).toBe(true);

  expect((await cluster.api("a").prompt(id, `count ${tag}`)).status).toBe(200);
  await expect.poll(() => ranAndStopped(live.events), { timeout: 30_000 }).toBe(true);
  live.close();

  const [request] = cluster.model.requests(tag);
  expect(request && instanceOf(request)).toBe("a");
  // The compact encoding reached B's client: no text in the part, the delta, and the offset
  // where it starts — each one right where the last ended.
  let text = "";
  for (const { part, delta, offset } of textDeltas(live.events)) {
    expect(part.type === "text" && part.text).toBe("");
    expect(offset).toBe(text.length);
    text += delta;
  }
  expect(tokens(text)).toEqual(range(n));
  // And what was stored is what the model wrote.
  await expect.poll(async () => settled(await stored(cluster.db, id))).toBe(true);
  const state = await stored(cluster.db, id);
  expect(textOf(state.messages.at(-1))).toBe(request?.sent.map((s) => s.text).join("").trimEnd());
});

test("a share viewer on B watches A's session live, and a revoke on A ends the view", async ({ cluster, browser }) => {
  const { id, tag } = await cluster.session("a", "Shared across instances");
  const shared = await cluster.api("a").data<{ share?: { url: string } }>("session.share", { sessionId: id });
  const link = new URL(shared.share?.url ?? "", cluster.a.url).pathname;
  const n = 80;
  cluster.model.script(tag, counted(n, 40));

  const context = await cluster.browser(browser, "b", { signedIn: false });
  const viewer = new SharePage(await context.newPage());
  await viewer.goto(link);
  // A second viewer on B, reading the link's stream itself.
  const live = await cluster.api("b").live(`${link.replace("/share/", "/api/share/")}/events`, { signedIn: false });
  await expect.poll(() => live.events.some((e) => e.name === "stream.ready")).toBe(true);

  expect((await cluster.api("a").prompt(id, `stream ${tag}`)).status).toBe(200);
  const text = viewer.page.locator('[data-testid="message"][data-role="assistant"] [data-part-type="text"]');
  // Live: the answer grows on the page while A is still streaming it.
  await expect(text).toContainText("20 21 22");
  const request = cluster.model.requests(tag)[0];
  expect(request?.ended).toBeUndefined();
  expect(request && instanceOf(request)).toBe("a");
  await expect(text).toHaveText(range(n).join(" "));
  await expect.poll(() => ranAndStopped(live.events)).toBe(true);

  await cluster.api("a").data("session.unshare", { sessionId: id });
  await expect(viewer.revoked).toBeVisible();
  await expect.poll(() => live.closed()).toBe(true);
  expect(live.events.at(-1)?.name).toBe("share.revoked");
  let streamed = "";
  for (const { delta } of textDeltas(live.events)) streamed += delta;
  expect(tokens(streamed)).toEqual(range(n));
  await context.close();
});
