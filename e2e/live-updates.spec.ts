import { Session } from "../server/session";
import { expect, test } from "./fixtures";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";

test("the session page follows the session's events live", async ({ page, seed }) => {
  const session = await seed.session({ title: `Live ${Date.now().toString(36)}` });
  const ask = await seed.userMessage(session.id, [{ type: "text", text: "List the files." }]);
  const view = new SessionPage(page);
  await view.goto(session.id);
  await expect(page.getByText("List the files.")).toBeVisible();

  // A new assistant message and a streamed text part arrive without a reload. Streamed
  // text reaches the browser as compact deltas (server/session/wire.ts): appended, never duplicated.
  const reply = await seed.assistantMessage(session.id, ask.id, [], { completed: false });
  const text = await seed.part(reply, { type: "text", text: "Looking", time: { start: Date.now() } }, undefined, "Looking");
  await seed.part(reply, { type: "text", text: "Looking at the", time: { start: Date.now() } }, text.id, " at the");
  await seed.part(reply, { type: "text", text: "Looking at the project", time: { start: Date.now() } }, text.id, " project");
  await seed.flush();
  await expect(view.part("text").filter({ hasText: "Looking at the project" })).toHaveText("Looking at the project");

  // A full update (the end of the text) replaces the part's text.
  await seed.part(reply, { type: "text", text: "Looking at the project now.", time: { start: Date.now(), end: Date.now() } }, text.id);
  await seed.flush();
  await expect(view.part("text").filter({ hasText: "Looking at the project" })).toHaveText("Looking at the project now.");

  // A reload mid-stream shows the same text (read from the database), not twice.
  await page.reload();
  await expect(view.part("text").filter({ hasText: "Looking at the project" })).toHaveText("Looking at the project now.");

  // A tool moves pending → running → completed.
  const tool = await seed.part(reply, { type: "tool", callId: "c1", tool: "list", state: { status: "pending", input: {}, raw: "" } });
  await seed.flush();
  await expect(view.tool("pending")).toBeVisible();
  const start = Date.now();
  await seed.part(reply, { type: "tool", callId: "c1", tool: "list", state: { status: "running", input: { path: "." }, time: { start } } }, tool.id);
  await seed.flush();
  await expect(view.tool("running")).toBeVisible();
  await seed.part(
    reply,
    { type: "tool", callId: "c1", tool: "list", state: { status: "completed", input: { path: "." }, output: "README.md\nsrc/", title: ".", metadata: {}, time: { start, end: start + 40 } } },
    tool.id,
  );
  await seed.flush();
  await expect(view.tool("completed")).toContainText("README.md");
  await expect(view.part("tool")).toHaveCount(1);

  // Removing a part removes it from the page; a title change shows at once.
  await Session.removePart(seed.ctx, session.id, reply.id, text.id);
  await Session.update(seed.ctx, session.id, { title: `${session.title} (renamed)` });
  await seed.flush();
  await expect(view.part("text").filter({ hasText: "Looking at the project" })).toHaveCount(0);
  await expect(view.title).toHaveText(`${session.title} (renamed)`);
});

test("the session list follows the team's events live", async ({ page, seed }) => {
  const tag = Date.now().toString(36);
  const list = new SessionListPage(page);
  await list.goto();
  await list.search.fill(tag);
  await expect(list.rows).toHaveCount(0);
  await seed.session({ title: `Appears live ${tag}` });
  await seed.flush();
  await expect(list.row(`Appears live ${tag}`)).toBeVisible();
});

test("one session page opens one event stream, so many tabs fit the browser's connection limit", async ({ page, seed }) => {
  const session = await seed.session({ title: `One stream ${Date.now().toString(36)}` });
  const streams: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/events")) streams.push(new URL(request.url()).pathname);
  });
  const view = new SessionPage(page);
  await view.goto(session.id);
  await expect(view.title).toHaveText(session.title);
  // Everything that listens to the session (messages, status, permission prompts) shares it.
  await expect.poll(() => streams.filter((p) => p === `/api/sessions/${session.id}/events`).length).toBe(1);
  await page.waitForTimeout(500);
  expect(streams.filter((p) => p === `/api/sessions/${session.id}/events`)).toHaveLength(1);

  // Four more tabs of the same session still load and stream.
  const tabs = await Promise.all([1, 2, 3, 4].map(() => page.context().newPage()));
  for (const tab of tabs) await new SessionPage(tab).goto(session.id);
  await Session.update(seed.ctx, session.id, { title: `${session.title} (live everywhere)` });
  await seed.flush();
  for (const tab of [page, ...tabs]) await expect(new SessionPage(tab).title).toHaveText(`${session.title} (live everywhere)`);
});

test("a stream refused by the server (a 503 while it restarts) is opened again and the page catches up", async ({ page, seed }) => {
  const session = await seed.session({ title: `Refused ${Date.now().toString(36)}` });
  let restarting = true;
  let refused = 0;
  let passed = 0;
  // While "restarting", every attempt gets an error response, after which a browser's
  // EventSource gives up for good: only the page itself can open it again.
  await page.route(`**/api/sessions/${session.id}/events`, async (route) => {
    if (restarting) {
      refused++;
      await route.fulfill({ status: 503, contentType: "text/plain", body: "restarting" });
    } else {
      passed++;
      await route.continue();
    }
  });
  const view = new SessionPage(page);
  await view.goto(session.id);
  await expect(view.title).toHaveText(session.title);
  await expect.poll(() => refused).toBeGreaterThanOrEqual(2);

  // Changed while the page has no stream: shown once it has one again.
  await Session.update(seed.ctx, session.id, { title: `${session.title} (caught up)` });
  await seed.flush();
  restarting = false;
  await expect.poll(() => passed, { timeout: 20_000 }).toBe(1);
  await expect(view.title).toHaveText(`${session.title} (caught up)`);
  // And live from then on.
  await seed.userMessage(session.id, [{ type: "text", text: "Arrives live after the outage." }]);
  await seed.flush();
  await expect(page.getByText("Arrives live after the outage.")).toBeVisible();
});
