import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import * as Id from "../server/id";
import { Session } from "../server/session";
import { Instructions } from "../server/instructions";
import type { FakeOpenAI } from "../test/fake-openai";
import { reply } from "../test/fake-openai";
import { expect, test } from "./fixtures";
import { Chat } from "./pages/chat";
import { ComposerCommands } from "./pages/command-menu";
import { InstructionsLine, TeamInstructionsSection } from "./pages/instructions-section";
import { PermissionPrompt } from "./pages/permission-prompt";
import { SessionPage } from "./pages/session-page";
import { ShareControls } from "./pages/share-page";
import { VISION_MODEL, startFakeProvider } from "./support/fake-provider";
import { tag } from "./support/people";
import { E2E_DATA_DIR, type Seeder } from "./support/seed";

/**
 * What a repository tells its agent, in the browser (issue 32, acceptance 5): a project whose
 * repository has `AGENTS.md`, a command `.opencode/command/hello.md` and agent files. The
 * `/` menu runs the command by keyboard with its arguments; the agent picker (and Tab in the
 * empty box) switches to `plan`, whose reply is labelled so; `!ls` runs in the sandbox once
 * approved, its output in the tool part and in the next prompt; an admin's team instruction
 * shows in the "Instructions" line of the next turn. The model is a fake OpenAI-compatible
 * server, which records what it was sent.
 */

const run = tag();
/** A file only this run's repository has: `ls` must show it. */
const MARKER = `ledger-${run}.txt`;
const TEAM_RULE = `Answer in plain words, team ${run}.`;

const FILES: Record<string, string> = {
  "README.md": "# Greetings\n",
  "AGENTS.md": "Run `npm test` before saying a change is done.\n",
  [MARKER]: "0\n",
  ".opencode/command/hello.md": "---\ndescription: Say hello to someone\n---\nSay hello to $ARGUMENTS in one line.\n",
  ".opencode/agent/reviewer.md": "---\ndescription: Reviews without changing files\nmode: primary\n---\nYou review code.\n",
  ".opencode/agent/secret.md": "---\ndescription: Not for the picker\nmode: primary\nhidden: true\n---\nHidden.\n",
};

/** A project of the worker's team in a fresh folder holding FILES (made a repository when its first session needs a workspace). */
async function repositoryProject(seed: Seeder): Promise<string> {
  const directory = path.resolve(E2E_DATA_DIR, `repository-${run}`);
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(directory, file)), { recursive: true });
    writeFileSync(path.join(directory, file), text);
  }
  const project = await seed.db.project.create({ data: { id: Id.ascending("project"), teamId: seed.ctx.actor.teamId, name: `Greetings ${run}`, directory } });
  return project.id;
}

/** The text of every message of the last request the fake model got. */
function lastRequestText(fake: FakeOpenAI): string {
  return JSON.stringify(fake.requests.at(-1)?.body.messages ?? []);
}

let fake: FakeOpenAI;
let projectId: string;

test.beforeAll(async ({ seed }) => {
  fake = await startFakeProvider();
  projectId = await repositoryProject(seed);
});
test.afterAll(async ({ seed }) => {
  await fake.close();
  // The team's instructions would otherwise reach every later spec of this worker's team
  // (set as an admin would: the server, which keeps them, is told through the bus).
  await Instructions.set(seed.ctx, { text: "" });
});
test.beforeEach(() => {
  fake.reset();
});

/** A new session of the project, open in the page, answering with the fake model. */
async function openSession(page: Page, seed: Seeder, title: string): Promise<Chat> {
  const session = await Session.create(seed.ctx, { projectId, title: `${title} ${run}` });
  await new SessionPage(page).goto(session.id);
  const chat = new Chat(page);
  await expect(chat.status).toHaveAttribute("data-status", "idle");
  await chat.modelPicker.selectOption(VISION_MODEL.key);
  return chat;
}

test("acceptance 5: the / menu, by keyboard, runs the project's /hello with its arguments", async ({ page, seed }) => {
  const chat = await openSession(page, seed, "Slash");
  const commands = new ComposerCommands(page);
  fake.enqueue(reply.text("Hello, Ada and Grace!"));

  // "/" opens the menu: the built-ins and the repository's command, with description and argument hint.
  await chat.input.focus();
  await page.keyboard.type("/");
  await expect(commands.menu).toBeVisible();
  await expect(commands.option("hello")).toContainText("Say hello to someone");
  await expect(commands.option("hello").getByTestId("command-hints")).toHaveText("$ARGUMENTS");
  for (const name of ["init", "review", "compact", "share", "undo", "redo"]) await expect(commands.option(name)).toBeVisible();
  await expect(commands.highlighted).toHaveCount(1);

  // Filtered as the member types; the box points at the highlighted option.
  await page.keyboard.type("he");
  await expect(commands.options).toHaveCount(1);
  await expect(commands.highlighted).toHaveAttribute("data-command", "hello");
  const optionId = await commands.highlighted.getAttribute("id");
  await expect(chat.input).toHaveAttribute("aria-activedescendant", optionId ?? "");

  // Escape closes the menu only; a new "/" opens it again.
  await page.keyboard.press("Escape");
  await expect(commands.menu).toBeHidden();
  await expect(chat.input).toHaveValue("/he");
  await page.keyboard.press("Backspace");
  await page.keyboard.press("Backspace");
  await page.keyboard.press("Backspace");
  await page.keyboard.type("/");
  await expect(commands.menu).toBeVisible();

  // ↓ moves to /hello (the built-in /compact comes first), Tab completes its name, the arguments follow, Enter runs it.
  await expect(commands.highlighted).toHaveAttribute("data-command", "compact");
  await page.keyboard.press("ArrowDown");
  await expect(commands.highlighted).toHaveAttribute("data-command", "hello");
  await page.keyboard.press("Tab");
  await expect(chat.input).toHaveValue("/hello ");
  await expect(commands.menu).toBeHidden();
  await page.keyboard.type("Ada and Grace");
  await expect(commands.mode).toHaveAttribute("data-mode", "command");
  await page.keyboard.press("Enter");
  await expect(chat.input).toHaveValue("");

  // The template, its $ARGUMENTS replaced, is what the member's message shows and what the model got.
  await expect(chat.user("Say hello to Ada and Grace in one line.")).toBeVisible();
  await expect(chat.lastAssistant).toContainText("Hello, Ada and Grace!");
  await chat.waitIdle();
  expect(lastRequestText(fake)).toContain("Say hello to Ada and Grace in one line.");
});

test("acceptance 5: the agent picker switches to plan, Tab cycles the agents in the empty box, and the reply is labelled @plan", async ({ page, seed }) => {
  const chat = await openSession(page, seed, "Agents");
  const commands = new ComposerCommands(page);

  // build, plan and the repository's primary agent; the hidden one is left out.
  await expect(commands.agentPicker).toHaveValue("build");
  await expect(commands.agentPicker.locator("option")).toHaveText(["@build", "@plan", "@reviewer"]);
  await commands.agentPicker.selectOption("plan");
  await expect(commands.agentPicker).toHaveValue("plan");

  // In the empty box Tab and Shift+Tab cycle, and the focus stays in the box.
  await chat.input.focus();
  await page.keyboard.press("Tab");
  await expect(commands.agentPicker).toHaveValue("reviewer");
  await page.keyboard.press("Tab");
  await expect(commands.agentPicker).toHaveValue("build");
  await page.keyboard.press("Shift+Tab");
  await expect(commands.agentPicker).toHaveValue("reviewer");
  await page.keyboard.press("Shift+Tab");
  await expect(commands.agentPicker).toHaveValue("plan");
  await expect(chat.input).toBeFocused();

  fake.enqueue(reply.text("First read greet, then add a farewell beside it."));
  await chat.ask("How would you add a farewell?");
  await expect(chat.lastAssistant).toContainText("add a farewell beside it");
  await expect(chat.lastAssistant.getByTestId("message-agent")).toHaveText("@plan");
  await expect(chat.user("How would you add a farewell?").getByTestId("message-agent")).toHaveText("@plan");
  await chat.waitIdle();

  // Escape, then Tab, leaves the box (a keyboard never gets stuck in it).
  await chat.input.focus();
  await page.keyboard.press("Escape");
  await page.keyboard.press("Tab");
  await expect(chat.input).not.toBeFocused();
  await expect(commands.agentPicker).toHaveValue("plan");
});

test("acceptance 5: !ls runs in the sandbox after approval; its output shows in the tool part and reaches the next prompt", async ({ page, seed }) => {
  const chat = await openSession(page, seed, "Shell");
  const commands = new ComposerCommands(page);
  const permissions = new PermissionPrompt(page);

  const asked = fake.requests.length;
  await chat.input.fill("!ls");
  await expect(commands.mode).toHaveAttribute("data-mode", "shell");
  await chat.input.press("Enter");

  // Asked like any bash call; nothing ran before the answer.
  await expect(permissions.request("ls")).toBeVisible();
  await expect(chat.tools(page.locator("body"), "completed")).toHaveCount(0);
  await permissions.allowOnce("ls");

  const tool = chat.tools(chat.lastAssistant, "completed");
  await expect(tool).toHaveCount(1);
  await expect(tool).toContainText(MARKER);
  await expect(chat.input).toHaveValue("");
  // The member ran it: the model was not asked anything.
  expect(fake.requests).toHaveLength(asked);

  // The output joins the conversation: the next prompt carries it to the model.
  fake.enqueue(reply.text("I saw the ledger."));
  await chat.ask("What did ls show?");
  await expect(chat.lastAssistant).toContainText("I saw the ledger.");
  expect(lastRequestText(fake)).toContain(MARKER);
});

test("!command rejected: nothing runs, the composer says why and keeps the command", async ({ page, seed }) => {
  const chat = await openSession(page, seed, "Shell rejected");
  const sessionId = new SessionPage(page).sessionId;
  const permissions = new PermissionPrompt(page);
  await chat.input.fill(`!rm ${MARKER}`);
  await chat.input.press("Enter");
  await permissions.reject(`rm ${MARKER}`);
  await expect(chat.error).toContainText("The shell command did not run");
  await expect(chat.input).toHaveValue(`!rm ${MARKER}`);
  await expect(chat.tools(chat.lastAssistant, "error")).toHaveCount(1);
  await expect(chat.tools(chat.lastAssistant, "completed")).toHaveCount(0);
  expect(existsSync(path.join(await seed.directory(sessionId), MARKER))).toBe(true);
});

test("acceptance 5: an admin's team instruction shows in the Instructions line of the next turn", async ({ page, seed }) => {
  const team = new TeamInstructionsSection(page);
  await team.goto();
  await expect(team.readOnlyNote).toHaveCount(0);
  await expect(team.scope.locator("option:checked")).toHaveText("The whole team");
  await team.write(TEAM_RULE);

  const chat = await openSession(page, seed, "Instructions");
  fake.enqueue(reply.text("Plainly: hello."));
  await chat.ask("Say hello");
  await expect(chat.lastAssistant).toContainText("Plainly: hello.");
  await chat.waitIdle();

  // The team's text comes before the repository's AGENTS.md, in the line and in the system prompt.
  const line = new InstructionsLine(chat.lastAssistant);
  await expect(line.summary).toHaveText("Instructions: team, AGENTS.md");
  await line.open();
  await expect(await line.read("team")).toContainText(TEAM_RULE);
  const system = JSON.stringify(fake.requests.at(-1)?.body.messages.filter((m) => m.role === "system") ?? []);
  expect(system).toContain(TEAM_RULE);
  expect(system.indexOf(TEAM_RULE)).toBeLessThan(system.indexOf("Run `npm test` before saying a change is done."));
});

test("the built-ins act in the browser as the server answers: /undo puts the prompt back, /redo shows it again, /share shows the link", async ({ page, seed }) => {
  const chat = await openSession(page, seed, "Built-ins");
  const commands = new ComposerCommands(page);
  const banner = page.getByTestId("revert-banner");
  fake.enqueue(reply.text("Noted: seven."));
  await chat.ask("Remember the number 7");
  await expect(chat.lastAssistant).toContainText("Noted: seven.");
  await chat.waitIdle();

  // Enter on a command without arguments runs it at once.
  await chat.input.fill("/und");
  await expect(commands.highlighted).toHaveAttribute("data-command", "undo");
  await chat.input.press("Enter");
  await expect(chat.input).toHaveValue("Remember the number 7");
  await expect(banner).toBeVisible();

  await chat.input.fill("/redo");
  await chat.input.press("Enter");
  await expect(banner).toBeHidden();
  await expect(chat.input).toHaveValue("");
  await expect(chat.user("Remember the number 7")).toBeVisible();

  const share = new ShareControls(page);
  await expect(share.url).toHaveCount(0);
  await chat.input.fill("/share");
  await chat.input.press("Enter");
  // The link is in the header's details.
  await share.reveal();
  await expect(share.url).toHaveValue(/\/share\/[A-Za-z0-9_-]+$/);
  await expect(chat.input).toHaveValue("");
});
