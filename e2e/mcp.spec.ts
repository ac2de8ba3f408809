import { mkdirSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import path from "node:path";
import { build } from "esbuild";
import * as Id from "../server/id";
import { ToolServerConfig } from "../server/mcp";
import { expect, test } from "./fixtures";
import { Chat } from "./pages/chat";
import { PermissionPrompt } from "./pages/permission-prompt";
import { SessionPage } from "./pages/session-page";
import { VISION_MODEL } from "./support/fake-provider";
import { inviteMember } from "./support/invite";
import { tag } from "./support/people";
import { E2E_DATA_DIR } from "./support/seed";
import { InstructionsLine } from "./pages/instructions-section";
import { ToolServersSection } from "./pages/tool-servers-section";
import { reply } from "../test/fake-openai";
import { TEST_INSTRUCTIONS, type TestMcpServer, startMcpServer } from "../test/mcp-server";

/**
 * Acceptance 6 (remote servers with a secret header): an admin adds a tool server on the
 * Team page with its header's value typed once (kept as a team secret, never shown again);
 * a member sees it read-only, and the member's session calls its tool after approving the
 * question and sees the result card. The server is a real MCP server on 127.0.0.1, which
 * the e2e configuration lets tool servers reach (toolServers.allowPrivateAddresses).
 */

/** No serious or critical axe violation inside `selector`, in the light and the dark theme. */
async function expectAccessible(page: Page, selector: string): Promise<void> {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    const results = await new AxeBuilder({ page }).include(selector).analyze();
    const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`), `${selector} (${colorScheme})`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

test.describe("tool servers", () => {
  let mcp: TestMcpServer;
  let oauth: TestMcpServer;
  let bulky: TestMcpServer;
  const secret = `mcp-e2e-${tag()}-${tag()}`;

  test.beforeAll(async () => {
    mcp = await startMcpServer({ secret });
    oauth = await startMcpServer({ secret: "unused", oauth: true });
    // One tool with a 40,000-character description: about 10,000 tokens, 31% of the offline model's 32,000.
    bulky = await startMcpServer({ secret: "bulky", header: "x-key", manual: 40_000 });
  });
  test.afterAll(async ({ seed }) => {
    await mcp.close();
    await oauth.close();
    await bulky.close();
    // The team-wide servers the tests leave (echo-…, docs-…) would otherwise reach the later
    // specs of this worker's team: a turn's "Instructions" line lists them (e2e/repository.spec.ts).
    // Removed as an admin would: the server, which keeps a team's servers, is told through the bus.
    const names = ["echo-", "docs-", "probe-", "bulky-"].map((prefix) => ({ name: { startsWith: prefix } }));
    const left = await seed.db.toolServer.findMany({ where: { teamId: seed.ctx.actor.teamId, OR: names }, select: { id: true } });
    for (const { id } of left) await ToolServerConfig.remove(seed.ctx, { id });
  });

  test("an admin adds a remote server with a secret header; a member's session calls its tool after approval and sees the result", async ({ page, browser, seed, fake }) => {
    test.setTimeout(120_000);
    const name = `echo-${tag()}`;
    await page.goto("/team");
    const servers = new ToolServersSection(page);
    const form = servers.form;
    await servers.fillRemote({ name, url: mcp.url, header: "Authorization", prefix: "Bearer " });
    await expect(form.getByLabel("New header value")).toHaveAttribute("type", "password");
    await form.getByLabel("New header value").fill(secret);
    await servers.add();

    const row = servers.row(name);
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

  test("an OAuth server shows Connect; the flow completes in the browser and the call works", async ({ page, seed, fake }) => {
    test.setTimeout(120_000);
    const name = `docs-${tag()}`;
    await page.goto("/team");
    const servers = new ToolServersSection(page);
    await servers.fillRemote({ name, url: oauth.url, header: "" });
    await servers.form.getByLabel("Uses OAuth").check();
    await servers.add();
    const row = servers.row(name);
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

  test("an admin adds a local server for one project (run in the sandbox, its variable a team secret), changes and removes it; a member sees it read-only", async ({ page, browser, seed }) => {
    test.setTimeout(180_000);
    const run = tag();
    const name = `probe-${run}`;
    const value = `local-e2e-${run}-${tag()}`;
    // A project of its own whose folder holds the test's stdio server (written with the MCP SDK), bundled into one file.
    const directory = path.resolve(E2E_DATA_DIR, `mcp-local-${run}`);
    mkdirSync(directory, { recursive: true });
    await build({ entryPoints: [path.resolve("test/mcp-stdio-server.ts")], bundle: true, platform: "node", format: "esm", target: "node22", outfile: path.join(directory, ".mcp", "server.mjs"), logLevel: "silent" });
    const projectName = `Tools ${run}`;
    await seed.db.project.create({ data: { id: Id.ascending("project"), teamId: seed.ctx.actor.teamId, name: projectName, directory } });

    await page.goto("/team");
    const servers = new ToolServersSection(page);
    const { section, form } = servers;
    await section.getByRole("combobox", { name: "Servers of", exact: true }).selectOption({ label: projectName });
    await expect(form).toContainText(`for the project ${projectName}`);
    await form.getByLabel("Server name").fill(name);
    await form.getByLabel("Server type").selectOption("local");
    await expect(form.getByLabel("Server URL")).toHaveCount(0);
    await form.getByLabel("Command, one argument per line").fill("node\n.mcp/server.mjs");
    await form.getByLabel("Variable 1 name").fill("LOCAL_TOKEN");
    await expect(form.getByLabel("Variable 1 new value")).toHaveAttribute("type", "password");
    await form.getByLabel("Variable 1 new value").fill(value);
    await form.getByLabel("Timeout in seconds").fill("30");
    await servers.add();

    const row = servers.row(name);
    await expect(row).toContainText("local: node .mcp/server.mjs");
    await expect(row).toContainText("project");
    await row.getByRole("button", { name: `Reconnect ${name}` }).click();
    await expect(row.getByTestId("tool-server-status")).toHaveText("Connected", { timeout: 30_000 });
    await expect(row.getByTestId("tool-server-tools")).toContainText(`${name}_add`);
    await expect(row.getByTestId("tool-server-tools")).toContainText(`${name}_env`);
    await expect(section.getByTestId("tool-servers-budget")).toContainText("Enabled tools:");
    expect(await page.content()).not.toContain(value);
    // The whole team's list does not hold the project's server.
    await section.getByRole("combobox", { name: "Servers of", exact: true }).selectOption({ label: "The whole team" });
    await expect(row).toHaveCount(0);

    // A member sees it and its tools in the project, and can change nothing.
    const member = await inviteMember(browser, page);
    await member.page.goto("/team");
    const memberSection = member.page.getByTestId("tool-servers");
    await memberSection.getByRole("combobox", { name: "Servers of", exact: true }).selectOption({ label: projectName });
    const memberRow = memberSection.locator(`[data-testid="tool-server"][data-name="${name}"]`);
    await expect(memberRow.getByTestId("tool-server-tools")).toContainText(`${name}_add`);
    await expect(memberRow).toContainText("local: node .mcp/server.mjs");
    await expect(memberSection.getByTestId("tool-servers-read-only")).toBeVisible();
    await expect(memberSection.getByTestId("tool-server-form")).toHaveCount(0);
    await expect(memberRow.getByRole("button")).toHaveCount(0);
    expect(await member.page.content()).not.toContain(value);

    // The admin changes it (an allow-list), disables it, then removes it.
    await page.goto("/team");
    await section.getByRole("combobox", { name: "Servers of", exact: true }).selectOption({ label: projectName });
    await row.getByRole("button", { name: `Edit ${name}` }).click();
    await expect(form).toContainText(`Change ${name}`);
    await expect(form.getByLabel("Command, one argument per line")).toHaveValue("node\n.mcp/server.mjs");
    await expect(form.getByLabel("Variable 1 secret")).toHaveValue(`mcp-${name}-local_token`);
    await form.getByLabel("Allowed tools").fill("add, env");
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form).toContainText("Add a tool server");
    const saved = await seed.db.toolServer.findFirstOrThrow({ where: { teamId: seed.ctx.actor.teamId, name } });
    expect(saved).toMatchObject({ type: "local", allow: ["add", "env"], timeoutMs: 30_000, enabled: true, scope: saved.projectId });
    expect(saved.environment).toEqual([{ name: "LOCAL_TOKEN", secret: `mcp-${name}-local_token` }]);
    await row.getByRole("button", { name: `Disable ${name}` }).click();
    await expect(row).toContainText("disabled");
    await row.getByRole("button", { name: `Remove ${name}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
    await expect(row).toHaveCount(0);
  });

  test("tools that take a large share of the model's context: a warning on the Team page and on the session's answer, whose Instructions line lists the server", async ({ page, seed }) => {
    test.setTimeout(120_000);
    const name = `bulky-${tag()}`;
    await page.goto("/team");
    const servers = new ToolServersSection(page);
    const { section, form } = servers;
    await servers.fillRemote({ name, url: bulky.url, header: "x-key", prefix: "" });
    await form.getByLabel("New header value").fill("bulky");
    await servers.add();
    const row = servers.row(name);
    await row.getByRole("button", { name: `Reconnect ${name}` }).click();
    await expect(row.getByTestId("tool-server-tools")).toContainText(`${name}_manual`);
    await expect(section.getByTestId("tool-servers-warning")).toContainText(/take about \d+ tokens, \d+% of the model's context/);
    // The warning and the form for a local server (its variables) pass axe in both themes.
    await form.getByLabel("Server type").selectOption("local");
    await expect(form.getByLabel("Variable 1 name")).toBeVisible();
    await expectAccessible(page, '[data-testid="tool-servers"]');
    await form.getByLabel("Server type").selectOption("remote");
    try {
      // A session of the team's default (offline) model: its answer carries the warning, and its Instructions line the server's instructions.
      const session = await seed.session({ title: `Bulky ${tag()}` });
      const view = new SessionPage(page);
      await view.goto(session.id);
      const chat = new Chat(page);
      await chat.ask("Hello there.");
      await expect(chat.lastAssistant.getByTestId("tool-context-warning")).toContainText(/% of the model's context: consider an allow-list of tools/);
      const line = new InstructionsLine(chat.lastAssistant);
      await expect(line.summary).toContainText(`tool server ${name}`);
      await line.open();
      await expect(await line.read(`tool server ${name}`)).toContainText(TEST_INSTRUCTIONS);
      await expectAccessible(page, '[data-testid="instructions-line"]');
    } finally {
      // The team's later sessions (other specs of this worker) do not carry this server's tools.
      await page.goto("/team");
      await row.getByRole("button", { name: `Remove ${name}` }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
      await expect(row).toHaveCount(0);
    }
    await expect(section.getByTestId("tool-servers-warning")).toHaveCount(0);
  });
});
