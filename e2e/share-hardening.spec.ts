import path from "node:path";
import { expect, test } from "./fixtures";
import { ShareControls, SharePage } from "./pages/share-page";
import { SessionPage } from "./pages/session-page";
import { E2E_DATA_DIR, E2E_PROJECT_DIR } from "./support/seed";

/**
 * What an anonymous share viewer gets, and the headers every page carries: no server path
 * (the session's workspace, the project directory, the data directory) and no raw internal error reaches the viewer — in
 * the server-rendered page, in share.page, or live — and a revoked link stays dead when the
 * session is shared again. The pages work under the Content Security Policy.
 */

const tag = () => Date.now().toString(36);
const DATA_DIR = path.resolve(E2E_DATA_DIR);
const PRISMA_ERROR = "Invalid `prisma.part.create()` invocation in\n/srv/parley/server/session/store.ts:88:21\n\n  85 const row = await tx.part.create({\n→ 88   data: { id: \"prt_1\" }";

test("a share viewer sees project-relative paths and no internal error; pages carry security headers; a revoked link stays dead", async ({ page, browser, seed, baseURL }) => {
  const cspErrors: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
  });

  const title = `Paths ${tag()}`;
  const session = await seed.session({ title });
  // Tools run in the session's workspace (inside the data directory): their outputs name it.
  const WORKSPACE = await seed.directory(session.id);
  const ask = await seed.userMessage(session.id, [{ type: "text", text: "List the project." }]);
  const start = Date.now() - 60_000;
  const savedOutput = path.join(DATA_DIR, "tool-output", seed.ctx.actor.teamId, session.id, "call_2.txt");
  await seed.assistantMessage(session.id, ask.id, [
    { type: "step-start" },
    {
      type: "tool",
      callId: "call_1",
      tool: "list",
      state: { status: "completed", input: { path: WORKSPACE }, output: `${WORKSPACE}/\n  src/\n    greet.ts\n  README.md\n(project: ${E2E_PROJECT_DIR})`, title: WORKSPACE, metadata: { path: "." }, time: { start, end: start + 20 } },
    },
    {
      type: "tool",
      callId: "call_2",
      tool: "bash",
      state: {
        status: "completed",
        input: { command: "npm test" },
        output: `...1200 lines truncated...\n\nok\n\nThe tool call succeeded but the output was truncated. Full output saved to: ${savedOutput}\nUse the grep tool to search it.`,
        title: "npm test",
        metadata: { truncated: true, outputPath: savedOutput },
        time: { start, end: start + 30 },
      },
    },
    { type: "text", text: "Here is the tree.", time: { start, end: start + 40 } },
  ]);
  const failedAsk = await seed.userMessage(session.id, [{ type: "text", text: "Try again." }]);
  await seed.assistantMessage(session.id, failedAsk.id, [], { error: { name: "UnknownError", message: PRISMA_ERROR } });
  await seed.flush();

  // Every page carries the security headers, and none says what serves it.
  const response = await page.goto(`/sessions/${session.id}`);
  const headers = response?.headers() ?? {};
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["content-security-policy"]).toContain("object-src 'none'");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["x-powered-by"]).toBeUndefined();

  // The member's page works under the policy (hydrated: sharing is interactive).
  const member = new SessionPage(page);
  await member.goto(session.id);
  const controls = new ShareControls(page);
  await controls.reveal();
  await expect(controls.hint).toContainText("sharing again makes a new one");
  const link = await controls.share();

  // The anonymous viewer: the page, server-rendered and live, shows no server path.
  const viewerPage = await (await browser.newContext()).newPage();
  viewerPage.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
  });
  const viewer = new SharePage(viewerPage);
  await viewer.goto(link);
  await expect(viewer.tool("completed").first()).toContainText("greet.ts");
  await expect(viewerPage.getByTestId("message-error")).toContainText("The server ran into an unexpected error.");
  const shown = await viewerPage.content();
  for (const secret of [WORKSPACE, E2E_PROJECT_DIR, DATA_DIR, "prisma.part.create", "store.ts:88"]) expect(shown).not.toContain(secret);

  const html = await (await fetch(`${baseURL}${link}`)).text();
  expect(html).toContain("Here is the tree.");
  for (const secret of [WORKSPACE, E2E_PROJECT_DIR, DATA_DIR, "prisma.part.create"]) expect(html).not.toContain(secret);

  const shareId = link.split("/").pop() ?? "";
  const api = await fetch(`${baseURL}/api/trpc/share.page?input=${encodeURIComponent(JSON.stringify({ shareId }))}`);
  expect(api.status).toBe(200);
  const json = await api.text();
  expect(json).toContain("tool-output/call_2.txt");
  for (const secret of [WORKSPACE, E2E_PROJECT_DIR, DATA_DIR, "prisma.part.create"]) expect(json).not.toContain(secret);

  // Live: a tool result and a failed reply written while the viewer watches.
  const liveAsk = await seed.userMessage(session.id, [{ type: "text", text: "And now?" }]);
  const reply = await seed.assistantMessage(session.id, liveAsk.id, [], { completed: false });
  await seed.part(reply, {
    type: "tool",
    callId: "call_3",
    tool: "bash",
    state: { status: "completed", input: { command: "pwd" }, output: `${WORKSPACE}/src`, title: "pwd", metadata: {}, time: { start, end: start + 5 } },
  });
  await seed.flush();
  await expect(viewer.tool("completed").filter({ hasText: "pwd" })).toContainText("src");
  await expect(viewerPage.getByText("And now?")).toBeVisible();
  expect(await viewerPage.content()).not.toContain(WORKSPACE);
  expect(await viewerPage.content()).not.toContain(E2E_PROJECT_DIR);

  // A revoked link stays dead: sharing again makes a new one.
  await controls.unshare();
  await expect(viewer.revoked).toBeVisible({ timeout: 5_000 });
  const renewed = await controls.share();
  expect(renewed).not.toBe(link);
  expect((await fetch(`${baseURL}${link}`)).status).toBe(404);
  expect((await fetch(`${baseURL}/api/share/${shareId}/events`)).status).toBe(404);
  await viewer.goto(renewed);
  await expect(viewerPage.getByText("Here is the tree.")).toBeVisible();

  // The team's list of links words it the same way.
  await controls.unshare();
  await page.goto("/shares");
  const row = page.locator(`[data-testid="shared-link"][data-share-id="${renewed.split("/").pop() ?? ""}"]`);
  await expect(row).toHaveAttribute("data-state", "revoked");
  await row.getByRole("button", { name: "Share with a new link" }).click();
  await expect(row).toHaveCount(0);
  expect((await fetch(`${baseURL}${renewed}`)).status).toBe(404);

  expect(cspErrors).toEqual([]);
  await viewerPage.context().close();
});
