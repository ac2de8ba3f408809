import { randomBytes } from "node:crypto";
import { anthropicReply, startFakeAnthropic } from "../test/fake-anthropic";
import type { FakeProvider } from "../test/fake-provider";
import { expect, test } from "./fixtures";
import { Chat } from "./pages/chat";
import { DashboardPage } from "./pages/dashboard-page";
import { SessionListPage } from "./pages/session-list-page";
import { inviteMember } from "./support/invite";

/**
 * Acceptance 4 of issue 35: an owner adds an Anthropic key on the Team page — its base URL
 * a fake Anthropic server this spec starts — tests it, enables a model and makes it the
 * default; a member's new session answers with it (the reply's model label), the request
 * carrying the team's key; the dashboard shows the month's cost per member.
 */

const PORT = Number(process.env.PARLEY_E2E_PORT ?? 3100) + 7;
const MODEL = "anthropic/claude-haiku-4-5";

test.describe("providers per team", () => {
  let fake: FakeProvider;
  test.beforeAll(async () => {
    fake = await startFakeAnthropic(PORT);
    // Titles are answered apart; every turn costs 1,000 input and 100 output tokens: $0.0015 at $1 / $5 per million.
    fake.route = (request) =>
      JSON.stringify(request.body.system ?? "").includes("short title")
        ? anthropicReply.text("Greeting")
        : JSON.stringify(request.body.messages).includes("Reply with the word OK")
          ? anthropicReply.text("OK")
          : anthropicReply.answer([{ kind: "text", deltas: ["Hello from ", "Claude."] }], { input: 1000, output: 100 });
  });
  test.afterAll(async () => {
    await fake.close();
  });

  test("acceptance 4: an admin adds an Anthropic key, enables a model and sets it default; a member's new session uses it; the dashboard shows cost per member", async ({ page, browser, account }) => {
    test.setTimeout(120_000);
    const key = `sk-ant-e2e-${randomBytes(12).toString("hex")}`;
    await page.goto("/team");
    const section = page.getByTestId("team-providers");
    const anthropic = section.locator('[data-testid="provider"][data-provider="anthropic"]');
    await expect(anthropic).toBeVisible();
    await anthropic.getByTestId("provider-key").fill(key);
    await anthropic.getByTestId("provider-base-url").fill(`http://127.0.0.1:${PORT}/v1`);
    await anthropic.getByTestId("provider-save").click();
    await expect(anthropic).toHaveAttribute("data-source", "team");
    await expect(anthropic.getByTestId("provider-set-by")).toContainText(`Set by ${account.name}`);
    await expect(anthropic.getByTestId("provider-key")).toHaveValue("");
    expect(await page.content()).not.toContain(key);

    await anthropic.getByTestId("provider-test").click();
    await expect(anthropic.getByTestId("provider-test-result")).toContainText("Works: anthropic/");
    expect(fake.requests.at(-1)?.key).toBe(key);

    const models = section.getByTestId("team-models");
    await models.locator(`[data-testid="enable-model"][data-model="${MODEL}"]`).check();
    await models.getByTestId("default-model").selectOption(MODEL);
    await models.getByTestId("save-models").click();
    await expect(models.getByRole("status")).toHaveText("Saved.");

    const member = await inviteMember(browser, page);
    const list = new SessionListPage(member.page);
    await list.goto();
    await list.createSession();
    const chat = new Chat(member.page);
    await expect(chat.modelPicker.locator("option:checked")).toHaveText(`Claude Haiku 4.5 (${MODEL})`);
    await expect(member.page.getByTestId("model-details")).toHaveText("200K context · $1 / $5 per M");
    await chat.ask("hello there");
    await expect(chat.lastAssistant).toContainText("Hello from Claude.");
    await expect(chat.lastAssistant.getByTestId("message-model")).toHaveText(MODEL);
    const turns = fake.requests.filter((r) => JSON.stringify(r.body.messages).includes("hello there") && !JSON.stringify(r.body.system ?? "").includes("short title"));
    expect(turns.map((r) => r.key)).toEqual([key]);

    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    const spending = page.getByTestId("spending");
    await expect(spending).toBeVisible();
    const row = spending.getByTestId("spending-member").filter({ hasText: "Member " });
    await expect(row).toContainText("$0.0015");
    await expect(spending.getByTestId("spending-team")).toHaveText("$0.0015");
  });
});
