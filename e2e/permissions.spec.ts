import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { Chat } from "./pages/chat";
import { PermissionPrompt, SessionSettingsDialog } from "./pages/permission-prompt";
import { SessionPage } from "./pages/session-page";
import type { Seeder } from "./support/seed";

/**
 * Permissions in the browser, against the built-in offline model, which runs
 * `run \`<command>\`` through the bash tool. By default bash asks (server/permission/evaluate.ts
 * DEFAULTS), so every command below raises a question, unless it was approved "always".
 * "Always" is stored for the whole project, so each test uses its own command words.
 */

/**
 * Send a user message through the app's tRPC API, as the chat composer does: for a tab
 * that must not see it happen (see "already answered").
 */
async function prompt(request: APIRequestContext, sessionId: string, text: string): Promise<void> {
  const response = await request.post("/api/trpc/session.prompt", { data: { sessionId, parts: [{ type: "text", text }] } });
  expect(response.ok(), await response.text()).toBe(true);
}

async function reply(request: APIRequestContext, requestId: string, answer: "once" | "always" | "reject"): Promise<void> {
  const response = await request.post("/api/trpc/permission.reply", { data: { requestId, reply: answer } });
  expect(response.ok(), await response.text()).toBe(true);
}

/** Stored "always" approvals of bash commands starting with `word` are removed, so each run starts from the defaults. */
async function forgetApprovals(seed: Seeder, word: string): Promise<void> {
  await seed.db.permissionApproval.deleteMany({ where: { projectId: seed.projectId, permission: "bash", pattern: `${word} *` } });
}

/** A new session open in the page, with its permission questions and its chat. */
async function openSession(page: Page, seed: Seeder, title: string) {
  const session = await seed.session({ title: `Permissions ${title} ${Date.now().toString(36)}` });
  const view = new SessionPage(page);
  await view.goto(session.id);
  return { session, view, asks: new PermissionPrompt(page), chat: new Chat(page) };
}

function bashTool(page: Page, command: string) {
  return new SessionPage(page).part("tool").filter({ hasText: `$ ${command}` });
}

test("allow once, then always: the remembered command runs with no question", async ({ page, seed }) => {
  await forgetApprovals(seed, "printf");
  const { session, view, asks, chat } = await openSession(page, seed, "once/always");

  const command = "printf perm-%s ok";
  await chat.ask(`run \`${command}\``);
  const card = asks.request(command);
  await expect(card).toBeVisible();
  await expect(card.getByTestId("permission-kind")).toHaveText("bash");
  await expect(card).toContainText("The agent asks to run a command");
  // Shown inside the call it is about.
  await expect(bashTool(page, command).getByTestId("permission-request")).toBeVisible();
  await expect(card.getByTestId("permission-always")).toContainText("printf *");
  await asks.allowOnce(command);
  await expect(bashTool(page, command)).toHaveAttribute("data-tool-status", "completed");
  await expect(bashTool(page, command)).toContainText("perm-ok");

  // "Once" remembered nothing: the same command asks again.
  await chat.ask(`run \`${command}\``);
  await expect(asks.request(command)).toBeVisible();
  await asks.allowAlways(command);
  await expect(view.tool("completed").filter({ hasText: `$ ${command}` })).toHaveCount(2);

  // Remembered: the third identical command runs straight away.
  await chat.ask(`run \`${command}\``);
  await expect(view.tool("completed").filter({ hasText: `$ ${command}` })).toHaveCount(3);
  await expect(asks.requests).toHaveCount(0);
  expect(await seed.db.permissionRequest.count({ where: { sessionId: session.id } })).toBe(2);
  await forgetApprovals(seed, "printf");
});

test("a rejection with feedback fails the tool and the model receives the feedback", async ({ page, seed }) => {
  const { view, asks, chat } = await openSession(page, seed, "reject");

  const command = "uname -a";
  await chat.ask(`run \`${command}\``);
  await expect(asks.request(command)).toBeVisible();
  const feedback = "Not on this machine, please";
  await asks.reject(command, feedback);

  const tool = bashTool(page, command);
  await expect(tool).toHaveAttribute("data-tool-status", "error");
  await expect(tool.getByTestId("tool-error")).toContainText(feedback);
  // The offline model summarises the failed call with the error it was given.
  await expect(view.part("text").filter({ hasText: "1 failed" })).toContainText(feedback);
});

test("a pending question survives a reload and can be answered after it", async ({ page, seed }) => {
  const { view, asks, chat } = await openSession(page, seed, "reload");

  const command = "echo survives-reload";
  await chat.ask(`run \`${command}\``);
  await expect(asks.request(command)).toBeVisible();
  await page.reload();
  await expect(view.title).toBeVisible();
  await expect(asks.request(command)).toBeVisible();
  await expect(asks.requests).toHaveCount(1);
  await asks.allowOnce(command);
  await expect(bashTool(page, command)).toHaveAttribute("data-tool-status", "completed");
  await expect(bashTool(page, command)).toContainText("survives-reload");
});

test("a question answered in a second tab disappears from the first", async ({ page, seed, context }) => {
  const { session, asks: firstAsks, chat } = await openSession(page, seed, "tabs");
  const other = await context.newPage();
  const second = new SessionPage(other);
  const secondAsks = new PermissionPrompt(other);
  await second.goto(session.id);

  const command = "echo answered-elsewhere";
  await chat.ask(`run \`${command}\``);
  await expect(firstAsks.request(command)).toBeVisible();
  await expect(secondAsks.request(command)).toBeVisible();
  await secondAsks.allowOnce(command);
  await expect(firstAsks.requests).toHaveCount(0);
  await expect(bashTool(page, command)).toHaveAttribute("data-tool-status", "completed");
  await expect(bashTool(page, command)).toContainText("answered-elsewhere");
  await other.close();
});

test("answering a question that was already answered says so", async ({ page, seed }) => {
  const session = await seed.session({ title: `Permissions stale ${Date.now().toString(36)}` });
  // This tab hears no events, so the question stays on screen after it is answered elsewhere.
  await page.route("**/api/sessions/*/events", (route) => route.abort());
  const view = new SessionPage(page);
  const asks = new PermissionPrompt(page);

  const command = "echo stale-card";
  await prompt(page.request, session.id, `run \`${command}\``);
  await expect.poll(() => seed.db.permissionRequest.count({ where: { sessionId: session.id, status: "pending" } })).toBe(1);
  await view.goto(session.id);
  await expect(asks.request(command)).toBeVisible();
  const pending = await seed.db.permissionRequest.findFirstOrThrow({ where: { sessionId: session.id, status: "pending" } });
  await reply(page.request, pending.id, "once");

  await asks.request(command).getByRole("button", { name: "Allow once" }).click();
  await expect(asks.replyErrors).toContainText("already answered (once)");
  await expect(asks.requests).toHaveCount(0);
  await asks.replyErrors.getByRole("button", { name: "Dismiss" }).click();
  await expect(asks.replyErrors).toHaveCount(0);
});

test("a session rule denying bash hides the tool from the model", async ({ page, seed }) => {
  const { session, view, asks, chat } = await openSession(page, seed, "deny");
  const settings = new SessionSettingsDialog(page);

  // An incomplete rule is refused with a message, and nothing is saved.
  await settings.open();
  await expect(settings.dialog.getByTestId("rules-empty")).toBeVisible();
  await settings.addRule({ permission: "", pattern: "*", action: "deny" });
  await settings.dialog.getByRole("button", { name: "Save rules" }).click();
  await expect(settings.dialog.getByRole("alert")).toContainText("Fix the highlighted rules");
  await expect(settings.dialog).toContainText("Name the permission");
  await settings.dialog.getByRole("combobox", { name: "Permission of rule 1" }).fill("bash");
  await settings.save();
  await expect.poll(async () => (await seed.db.session.findUniqueOrThrow({ where: { id: session.id } })).permission).toEqual([
    { permission: "bash", pattern: "*", action: "deny" },
  ]);

  // The dialog shows the saved rule again.
  await settings.open();
  await expect(settings.rules).toHaveCount(1);
  await expect(settings.dialog.getByRole("combobox", { name: "Permission of rule 1" })).toHaveValue("bash");
  await expect(settings.dialog.getByRole("combobox", { name: "Action of rule 1" })).toHaveValue("deny");
  await settings.dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(settings.dialog).toBeHidden();

  const command = "echo never-runs";
  await chat.ask(`run \`${command}\``);
  await expect(view.part("text").filter({ hasText: "not available to me here" })).toContainText("I would need the bash tool");
  await expect(view.part("tool")).toHaveCount(0);
  await expect(asks.requests).toHaveCount(0);

  // Without the rule, bash is offered again and asks as usual.
  await settings.open();
  await settings.dialog.getByRole("button", { name: "Remove rule 1" }).click();
  await expect(settings.dialog.getByTestId("rules-empty")).toBeVisible();
  await settings.save();
  await chat.ask(`run \`${command}\``);
  await expect(asks.request(command)).toBeVisible();
  await asks.reject(command);
  await expect(bashTool(page, command)).toHaveAttribute("data-tool-status", "error");
});
