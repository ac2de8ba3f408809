import type { Browser, Page } from "@playwright/test";
import { Session } from "../server/session";
import { expect, test } from "./fixtures";
import { ShareControls, SharePage } from "./pages/share-page";
import { SessionPage } from "./pages/session-page";
import type { Seeder } from "./support/seed";

const tag = () => Date.now().toString(36);
const tokens = { input: 1200, output: 300, reasoning: 0, cache: { read: 0, write: 0 } };

/** A session with a finished turn (text, a completed tool, a patch) and a child session. */
async function seedConversation(seed: Seeder, title: string) {
  const session = await seed.session({ title });
  const ask = await seed.userMessage(session.id, [{ type: "text", text: "Explain the sample project." }]);
  const start = Date.now() - 60_000;
  await seed.assistantMessage(
    session.id,
    ask.id,
    [
      { type: "step-start" },
      { type: "tool", callId: "call_1", tool: "read", state: { status: "completed", input: { path: "README.md" }, output: "# Sample project", title: "README.md", metadata: {}, time: { start, end: start + 30 } } },
      { type: "patch", hash: "4b825dc642cb6eb9a060e54bf8d69288fbee4904", files: ["src/greet.ts"] },
      { type: "text", text: "It is a small sample with a greeting helper.", time: { start, end: start + 500 } },
      { type: "step-finish", reason: "stop", cost: 0.0042, tokens },
    ],
    { cost: 0.0042, tokens },
  );
  const child = await seed.session({ title: `Child of ${title}`, parentId: session.id });
  const childAsk = await seed.userMessage(child.id, [{ type: "text", text: "Search for greet." }]);
  await seed.assistantMessage(child.id, childAsk.id, [{ type: "text", text: "Found greet in src/greet.ts.", time: { start, end: start + 10 } }]);
  await seed.flush();
  return { session, child };
}

/** A browser context with no cookies and no storage: someone who only has the link. */
async function anonymousViewer(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  return context.newPage();
}

test("share a session, watch it live without an account, revoke it, share it again", async ({ page, browser, seed, baseURL }) => {
  const title = `Shared ${tag()}`;
  const { session, child } = await seedConversation(seed, title);
  const member = new SessionPage(page);
  const controls = new ShareControls(page);
  await member.goto(session.id);
  await controls.reveal();
  await expect(controls.hint).toContainText("Anyone with the link");

  // Share, and copy the link.
  const path = await controls.share();
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await controls.root.getByRole("button", { name: "Copy link" }).click();
  await expect(controls.root.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${baseURL}${path}`);

  // Someone with only the link sees the whole session, read-only.
  const viewerPage = await anonymousViewer(browser);
  const viewer = new SharePage(viewerPage);
  await viewer.goto(path);
  await expect(viewer.title).toHaveText(title);
  await expect(viewerPage.getByText("Explain the sample project.")).toBeVisible();
  await expect(viewer.part("text").filter({ hasText: "It is a small sample" })).toBeVisible();
  await expect(viewer.tool("completed")).toContainText("README.md");
  await expect(viewer.part("patch")).toContainText("src/greet.ts");
  await expect(viewer.children.getByRole("link", { name: `Child of ${title}` })).toBeVisible();
  // Nothing on the page can change anything.
  await expect(viewerPage.getByRole("textbox")).toHaveCount(0);
  const buttons = await viewerPage.getByRole("button").allInnerTexts();
  expect(buttons.filter((name) => /share|unshare|revoke|delete|fork|rename|archive|send|stop|abort|allow|reject|compact/i.test(name))).toEqual([]);
  await expect(viewerPage.getByRole("navigation", { name: "Main" }).getByRole("link")).toHaveCount(0);
  // …and nothing from the viewer's browser can either: mutations need a member, and the
  // link opens no session outside the shared tree.
  const other = await seed.session({ title: `Not shared ${title}` });
  const asViewer = viewerPage.context().request;
  const mutation = await asViewer.post(`${baseURL}/api/trpc/session.unshare`, { data: { sessionId: session.id } });
  expect(mutation.status()).toBe(401);
  expect((await asViewer.post(`${baseURL}/api/trpc/session.remove`, { data: { sessionId: session.id } })).status()).toBe(401);
  const shareId = path.split("/").pop() ?? "";
  const outside = await asViewer.get(`${baseURL}/api/trpc/share.page?input=${encodeURIComponent(JSON.stringify({ shareId, sessionId: other.id }))}`);
  expect(outside.status()).toBe(404);
  expect((await fetch(`${baseURL}${path}?session=${other.id}`)).status).toBe(404);
  expect((await asViewer.get(`${baseURL}/api/sessions/${session.id}/events`)).status()).toBe(401);

  // A reply streamed into the session appears live for the viewer (compact deltas, no duplicates).
  const ask = await seed.userMessage(session.id, [{ type: "text", text: "What changed since?" }]);
  const reply = await seed.assistantMessage(session.id, ask.id, [], { completed: false });
  const part = await seed.part(reply, { type: "text", text: "Streaming", time: { start: Date.now() } }, undefined, "Streaming");
  await seed.part(reply, { type: "text", text: "Streaming a live", time: { start: Date.now() } }, part.id, " a live");
  await seed.part(reply, { type: "text", text: "Streaming a live answer", time: { start: Date.now() } }, part.id, " answer");
  await seed.flush();
  await expect(viewerPage.getByText("What changed since?")).toBeVisible();
  await expect(viewer.part("text").filter({ hasText: "Streaming" })).toHaveText("Streaming a live answer");
  const tool = await seed.part(reply, { type: "tool", callId: "call_2", tool: "bash", state: { status: "running", input: { command: "npm test" }, time: { start: Date.now() } } });
  await seed.flush();
  await expect(viewer.tool("running")).toBeVisible();
  await seed.part(
    reply,
    { type: "tool", callId: "call_2", tool: "bash", state: { status: "completed", input: { command: "npm test" }, output: "all tests passed", title: "npm test", metadata: {}, time: { start: Date.now(), end: Date.now() } } },
    tool.id,
  );
  await seed.flush();
  await expect(viewer.tool("completed").filter({ hasText: "all tests passed" })).toBeVisible();
  await expect(viewer.tool("running")).toHaveCount(0);

  // A plain fetch of the link (no JavaScript, no cookies) returns the content, server-rendered.
  const html = await (await fetch(`${baseURL}${path}`)).text();
  expect(html).toContain(title);
  expect(html).toContain("Explain the sample project.");
  expect(html).toContain("It is a small sample with a greeting helper.");
  expect(html).toContain("Streaming a live answer");

  // Child sessions open inside the share.
  await viewer.children.getByRole("link", { name: `Child of ${title}` }).click();
  await expect(viewerPage).toHaveURL(`${baseURL}${path}?session=${child.id}`);
  await expect(viewer.title).toHaveText(`Child of ${title}`);
  await expect(viewerPage.getByText("Found greet in src/greet.ts.")).toBeVisible();
  await viewerPage.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: title }).click();
  await expect(viewer.title).toHaveText(title);
  await expect(viewerPage.getByTestId("share-connection")).toHaveAttribute("data-connected", "true");

  // Unsharing revokes at once, live viewers included; the link then answers 404.
  await controls.unshare();
  await expect(viewer.revoked).toBeVisible({ timeout: 3_000 });
  await expect(viewer.revoked).toContainText("This link was revoked");
  await expect(viewerPage.getByText("Explain the sample project.")).toHaveCount(0);
  const gone = await fetch(`${baseURL}${path}`);
  expect(gone.status).toBe(404);
  expect(await gone.text()).not.toContain("Explain the sample project.");
  expect((await fetch(`${baseURL}/api/share/${shareId}/events`)).status).toBe(404);

  // Sharing again makes a new URL that works; the revoked one stays dead.
  const renewed = await controls.share();
  expect(renewed).not.toBe(path);
  await viewer.goto(renewed);
  await expect(viewerPage.getByText("Explain the sample project.")).toBeVisible();
  expect((await fetch(`${baseURL}${path}`)).status).toBe(404);
  await viewerPage.context().close();
});

test("a long shared session shows its newest page and pages through the rest", async ({ browser, seed }) => {
  const session = await seed.session({ title: `Long ${tag()}` });
  // 130 messages: 65 questions, each answered.
  for (let i = 1; i <= 65; i++) {
    const ask = await seed.userMessage(session.id, [{ type: "text", text: `Question number ${i}` }]);
    await seed.assistantMessage(session.id, ask.id, [{ type: "text", text: `Answer number ${i}`, time: { start: Date.now(), end: Date.now() } }]);
  }
  const shared = await Session.share(seed.ctx, session.id);
  const viewerPage = await anonymousViewer(browser);
  const viewer = new SharePage(viewerPage);
  await viewer.goto(shared.share?.url ?? "");

  // The first page (50 messages) is rendered, not the whole session.
  await expect(viewer.messages).toHaveCount(50);
  await expect(viewerPage.getByText("Answer number 65", { exact: true })).toBeVisible();
  await expect(viewerPage.getByText("Question number 1", { exact: true })).toHaveCount(0);
  await viewer.loadOlder.click();
  await expect(viewer.messages).toHaveCount(100);
  await viewer.loadOlder.click();
  await expect(viewer.messages).toHaveCount(130);
  await expect(viewerPage.getByText("Question number 1", { exact: true })).toBeVisible();
  await expect(viewer.loadOlder).toHaveCount(0);
  // In order, oldest first, each once.
  const first = await viewer.messages.first().innerText();
  expect(first).toContain("Question number 1");
  await viewerPage.context().close();
});

test("the shared links page lists the team's links and revokes them", async ({ page, browser, seed, baseURL }) => {
  const t = tag();
  const a = await seed.session({ title: `Link A ${t}` });
  const b = await seed.session({ title: `Link B ${t}` });
  const shareA = (await Session.share(seed.ctx, a.id)).share?.id ?? "";
  const shareB = (await Session.share(seed.ctx, b.id)).share?.id ?? "";
  await seed.flush();

  const viewerPage = await anonymousViewer(browser);
  const viewer = new SharePage(viewerPage);
  await viewer.goto(`/share/${shareA}`);

  await page.goto("/shares");
  await expect(page.getByRole("heading", { name: "Shared links", level: 1 })).toBeVisible();
  const rowA = page.locator(`[data-testid="shared-link"][data-share-id="${shareA}"]`);
  const rowB = page.locator(`[data-testid="shared-link"][data-share-id="${shareB}"]`);
  await expect(rowA).toContainText(`Link A ${t}`);
  await expect(rowA.getByTestId("shared-link-url")).toHaveText(`/share/${shareA}`);
  await expect(rowB).toHaveAttribute("data-state", "active");

  await rowA.getByRole("button", { name: "Revoke" }).click();
  await expect(rowA).toHaveAttribute("data-state", "revoked");
  await expect(rowA).toContainText("Revoked");
  await expect(rowB).toHaveAttribute("data-state", "active");
  await expect(viewer.revoked).toBeVisible({ timeout: 3_000 });
  expect((await fetch(`${baseURL}/share/${shareA}`)).status).toBe(404);

  // The views narrow the list.
  await page.getByRole("button", { name: "Active", exact: true }).click();
  await expect(rowA).toHaveCount(0);
  await expect(rowB).toBeVisible();
  await page.getByRole("button", { name: "Revoked", exact: true }).click();
  await expect(rowA).toBeVisible();
  await expect(rowB).toHaveCount(0);

  // Sharing again from the list makes a new link; the revoked one stays dead.
  await page.getByRole("button", { name: "All", exact: true }).click();
  await rowA.getByRole("button", { name: "Share with a new link" }).click();
  await expect(rowA).toHaveCount(0);
  expect((await fetch(`${baseURL}/share/${shareA}`)).status).toBe(404);
  await viewerPage.context().close();
});

test("an unknown share link is a 404 page", async ({ page }) => {
  const response = await page.goto("/share/AAAAAAAAAAAAAAAAAAAAAA");
  expect(response?.status()).toBe(404);
  await expect(new SharePage(page).notFound).toContainText("This link does not exist or was revoked");
  expect((await page.goto("/share/AAAAAAAAAAAAAAAAAAAAAA?session=ses_nope"))?.status()).toBe(404);
});
