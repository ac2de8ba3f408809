import { expect, test } from "./fixtures";
import { Chat } from "./pages/chat";
import { PermissionPrompt } from "./pages/permission-prompt";
import { SessionPage } from "./pages/session-page";
import { VISION_MODEL, startFakeProvider } from "./support/fake-provider";
import { inviteMember } from "./support/invite";
import { tag } from "./support/people";
import { type FakeOpenAI, reply } from "../test/fake-openai";
import { type TestMcpServer, startMcpServer } from "../test/mcp-server";

/**
 * Acceptance 6 (remote servers with a secret header): an admin adds a tool server on the
 * Team page with its header's value typed once (kept as a team secret, never shown again);
 * a member sees it read-only, and the member's session calls its tool after approving the
 * question and sees the result card. The server is a real MCP server on 127.0.0.1, which
 * the e2e configuration lets tool servers reach (toolServers.allowPrivateAddresses).
 */

test.describe("tool servers", () => {
  let fake: FakeOpenAI;
  let mcp: TestMcpServer;
  let oauth: TestMcpServer;
  const secret = `mcp-e2e-${tag()}-${tag()}`;

  test.beforeAll(async () => {
    fake = await startFakeProvider();
    mcp = await startMcpServer({ secret });
    oauth = await startMcpServer({ secret: "unused", oauth: true });
  });
  test.afterAll(async () => {
    await fake.close();
    await mcp.close();
    await oauth.close();
  });

  test("an admin adds a remote server with a secret header; a member's session calls its tool after approval and sees the result", async ({ page, browser, seed }) => {
    test.setTimeout(120_000);
    const name = `echo-${tag()}`;
    await page.goto("/team");
    const section = page.getByTestId("tool-servers");
    const form = section.getByTestId("tool-server-form");
    await form.getByLabel("Server name").fill(name);
    await form.getByLabel("Server URL").fill(mcp.url);
    await form.getByLabel("Header name").fill("Authorization");
    await form.getByLabel("Value prefix").fill("Bearer ");
    await expect(form.getByLabel("New header value")).toHaveAttribute("type", "password");
    await form.getByLabel("New header value").fill(secret);
    await form.getByRole("button", { name: "Add server" }).click();

    const row = section.locator(`[data-testid="tool-server"][data-name="${name}"]`);
    await expect(row).toBeVisible();
    await expect(row).toContainText(`‹secret mcp-${name}›`);
    await expect(form.getByLabel("New header value")).toHaveValue("");
    await row.getByRole("button", { name: `Reconnect ${name}` }).click();
    await expect(row.getByTestId("tool-server-status")).toHaveText("Connected");
    await expect(row.getByTestId("tool-server-tools")).toContainText(`${name}_add`);
    expect(await page.content()).not.toContain(secret);

    // A member sees the server and its tools, and cannot change it.
    const member = await inviteMember(browser, page);
    await member.page.goto("/team");
    const memberSection = member.page.getByTestId("tool-servers");
    await expect(memberSection.locator(`[data-testid="tool-server"][data-name="${name}"]`).getByTestId("tool-server-tools")).toContainText(`${name}_add`);
    await expect(memberSection.getByTestId("tool-servers-read-only")).toBeVisible();
    await expect(memberSection.getByTestId("tool-server-form")).toHaveCount(0);
    expect(await member.page.content()).not.toContain(secret);

    // The member's session: the model calls the tool, the member approves, the result card shows.
    const created = await member.page.request.post("/api/trpc/session.create", { data: { projectId: seed.projectId, title: `Tool servers ${tag()}` } });
    expect(created.ok(), await created.text()).toBe(true);
    const sessionId = ((await created.json()) as { result: { data: { id: string } } }).result.data.id;
    // The session's title is asked for beside the first answer: it gets its own reply.
    const isTitle = (content: unknown) => JSON.stringify(content ?? "").includes("Generate a short title");
    fake.route = (request) => (isTitle(request.body.messages.find((m) => m.role === "system")?.content) ? reply.text("Adding") : undefined);
    fake.enqueue(reply.toolCall({ id: "call_e2e_add", name: `${name}_add`, pieces: ['{"a":2,', '"b":3}'] }), reply.text("The sum is five."));
    const view = new SessionPage(member.page);
    await view.goto(sessionId);
    const chat = new Chat(member.page);
    await chat.modelPicker.selectOption(VISION_MODEL.key);
    await chat.ask("Add 2 and 3 with the echo server.");
    const asks = new PermissionPrompt(member.page);
    const question = asks.requests.filter({ has: member.page.getByTestId("permission-kind").getByText(`${name}_add`, { exact: true }) });
    await expect(question).toBeVisible();
    await question.getByRole("button", { name: "Allow once" }).click();
    const card = view.part("tool").filter({ hasText: `${name}_add` });
    await expect(card).toHaveAttribute("data-tool-status", "completed");
    await card.getByTestId("tool-name").click();
    await expect(card.getByTestId("mcp-origin")).toContainText(`tool server ${name}`);
    await expect(card).toContainText("The sum is 5.");
    await expect(chat.lastAssistant).toContainText("The sum is five.");
    expect(mcp.calls.at(-1)).toEqual({ tool: "add", args: { a: 2, b: 3 } });
    expect(await member.page.content()).not.toContain(secret);
  });

  test("an OAuth server shows Connect; the flow completes in the browser and the call works", async ({ page, seed }) => {
    test.setTimeout(120_000);
    const name = `docs-${tag()}`;
    await page.goto("/team");
    const section = page.getByTestId("tool-servers");
    const form = section.getByTestId("tool-server-form");
    await form.getByLabel("Server name").fill(name);
    await form.getByLabel("Server URL").fill(oauth.url);
    await form.getByLabel("Header name").fill("");
    await form.getByLabel("Uses OAuth").check();
    await form.getByRole("button", { name: "Add server" }).click();
    const row = section.locator(`[data-testid="tool-server"][data-name="${name}"]`);
    await row.getByRole("button", { name: `Reconnect ${name}` }).click();
    await expect(row.getByTestId("tool-server-status")).toHaveText("Not connected (OAuth)");
    await expect(row.getByTestId("tool-server-error")).toContainText(`Connect ${name}`);

    // The authorization server (in the harness) approves at once and sends the browser back.
    await row.getByRole("button", { name: `Connect ${name}`, exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/team" && url.searchParams.get("connected") === name);
    await expect(page.getByTestId("tool-server-connected")).toHaveText(`${name} is connected.`);
    const connected = page.getByTestId("tool-servers").locator(`[data-testid="tool-server"][data-name="${name}"]`);
    await expect(connected.getByTestId("tool-server-status")).toHaveText("Connected");
    await expect(connected.getByTestId("tool-server-tools")).toContainText(`${name}_add`);
    expect(oauth.grants).toEqual(["authorization_code"]);
    const content = await page.content();
    for (const token of oauth.issued) expect(content).not.toContain(token);

    const session = await seed.session({ title: `OAuth tools ${tag()}` });
    const isTitle = (content: unknown) => JSON.stringify(content ?? "").includes("Generate a short title");
    fake.route = (request) => (isTitle(request.body.messages.find((m) => m.role === "system")?.content) ? reply.text("Docs") : undefined);
    fake.enqueue(reply.toolCall({ id: "call_e2e_docs", name: `${name}_add`, pieces: ['{"a":7,"b":8}'] }), reply.text("Fifteen."));
    const view = new SessionPage(page);
    await view.goto(session.id);
    const chat = new Chat(page);
    await chat.modelPicker.selectOption(VISION_MODEL.key);
    await chat.ask("Add 7 and 8 with the docs server.");
    const question = new PermissionPrompt(page).requests.filter({ has: page.getByTestId("permission-kind").getByText(`${name}_add`, { exact: true }) });
    await question.getByRole("button", { name: "Allow once" }).click();
    const card = view.part("tool").filter({ hasText: `${name}_add` });
    await expect(card).toHaveAttribute("data-tool-status", "completed");
    await card.getByTestId("tool-name").click();
    await expect(card).toContainText("The sum is 15.");
  });
});
