import { PART_TYPES } from "../server/session/message";
import { expect, test } from "./fixtures";
import { SessionPage } from "./pages/session-page";
import { ToolCard } from "./pages/tool-card";
import { seedShowcase } from "./support/showcase";

const TOOL_STATES = { pending: "Pending", running: "Running", completed: "Completed", error: "Error" } as const;

test.describe("session page renders stored messages", () => {
  test("every part type and every tool state has its renderer", async ({ page, seed }) => {
    const { session, child } = await seedShowcase(seed);
    const view = new SessionPage(page);
    await view.goto(session.id);
    await expect(view.title).toHaveText("Add a farewell helper to greet.ts");

    // A step's end is not shown in the transcript (its usage is in the session's details, below).
    for (const type of PART_TYPES.filter((t) => t !== "step-finish")) {
      await expect(view.part(type).first(), `part type ${type}`).toBeVisible();
    }

    for (const [status, label] of Object.entries(TOOL_STATES)) {
      const card = view.tool(status as keyof typeof TOOL_STATES).first();
      await expect(card, `tool state ${status}`).toBeVisible();
      await expect(card.getByTestId("tool-status")).toHaveText(label);
    }

    // Tool cards: per-tool renderers and the generic fallback.
    const bash = view.tool("error").filter({ hasText: "npm test" });
    await expect(bash.getByTestId("tool-name")).toHaveText("bash");
    await expect(bash.getByTestId("tool-error")).toContainText("Cannot find module 'vitest'");
    await expect(bash).toContainText("1.2 s");
    const edit = view.tool("completed").filter({ has: page.getByTestId("tool-name").getByText("edit", { exact: true }) });
    await expect(edit.getByTestId("tool-title")).toHaveText("src/greet.ts");
    await expect(edit).toContainText("Goodbye, ${name}!");
    const fallback = view.tool("pending");
    await expect(fallback.getByTestId("tool-name")).toHaveText("webfetch");
    await expect(fallback).toContainText('"url": "https://example.com/style-guide"');
    await expect(view.tool("running")).toContainText("export function in src");
    const task = view.tool("completed").filter({ hasText: "Open child session" });
    await new ToolCard(task).open();
    await expect(task.getByRole("link", { name: "Open child session →" })).toHaveAttribute("href", `/sessions/${child.id}`);
    // read: the file as numbered, highlighted code.
    const read = new ToolCard(view.tool("completed").filter({ has: page.getByTestId("tool-name").getByText("read", { exact: true }) }));
    await read.open();
    await expect(read.root.getByTestId("line-number")).toHaveText(["1", "2", "3"]);
    await expect(read.root.getByTestId("code-view").locator(".hljs-keyword").first()).toHaveText("export");

    // The other parts show their content.
    await expect(view.part("patch")).toContainText("2 files changed");
    await expect(view.part("patch")).toContainText("src/greet.test.ts");
    await expect(view.part("retry")).toContainText("Attempt 1 failed");
    await expect(view.part("retry")).toContainText("Attempt 2 went through.");
    await expect(view.part("retry")).toContainText("Rate limit reached");
    await expect(view.part("compaction")).toContainText("Conversation compacted");
    await expect(view.part("subtask")).toContainText("Subtask for @explore");
    await expect(view.part("agent")).toHaveText("@build");
    await expect(view.part("file")).toContainText("greet.ts");
    await expect(view.part("snapshot")).toContainText("e69de29bb2");
    // A step's usage is in the session's details, not in the transcript.
    await expect(view.part("step-finish")).toHaveCount(0);
    await view.openDetails();
    await expect(page.getByTestId("step-usage-row").first()).toContainText("$0.0081");

    // Reasoning is collapsed until opened.
    const reasoning = view.part("reasoning");
    await expect(reasoning.getByText("I should read")).toBeHidden();
    await reasoning.getByText("Thought for 2.3 s").click();
    await expect(reasoning.getByText("I should read")).toBeVisible();

    // Markdown becomes HTML elements.
    const answer = view.part("text").filter({ hasText: "farewell(name)" }).last();
    await expect(answer.getByRole("heading", { name: "Done" })).toBeVisible();
    await expect(answer.locator("table")).toContainText("src/greet.test.ts");
    await expect(answer.locator("pre code")).toContainText("Goodbye");

    // Assistant metadata and stored errors, readable.
    const first = view.messages.filter({ has: page.locator('[data-part-type="reasoning"]') });
    await expect(first.getByTestId("message-model")).toHaveText("parley/offline-1");
    await expect(first.getByTestId("message-cost")).toHaveText("$0.0123");
    await expect(first.getByTestId("message-tokens")).toHaveText("7.8K tokens");
    await expect(page.locator('[data-testid="message-error"][data-error-name="AbortedError"]')).toContainText("Stopped");
    const apiError = page.locator('[data-testid="message-error"][data-error-name="APIError"]');
    await expect(apiError).toContainText("Provider API error (HTTP 500)");
    await expect(apiError).toContainText("Internal server error");

    // Session header and child list.
    await expect(page.getByTestId("session-cost")).toHaveText("$0.017");
    await expect(page.getByTestId("children-list").getByRole("link", { name: child.title })).toBeVisible();
  });

  test("raw HTML in a text part is shown as text, never rendered", async ({ page, seed }) => {
    const { session } = await seedShowcase(seed, "Hostile markdown");
    const view = new SessionPage(page);
    await view.goto(session.id);
    const part = view.part("text").filter({ hasText: "Raw HTML in markdown must stay text" });
    await expect(part).toBeVisible();
    await expect(part).toContainText('<script>window.__parleyXss = "script"</script>');
    await expect(part).toContainText('<b data-testid="raw-html">not bold</b>');
    await expect(part.locator("script, img, b")).toHaveCount(0);
    await expect(page.getByTestId("raw-html")).toHaveCount(0);
    // The javascript: link lost its URL.
    const link = part.getByText("a link");
    await expect(link).toBeVisible();
    expect(await link.evaluate((el) => el.closest("a")?.getAttribute("href") ?? "")).not.toContain("javascript:");
    expect(await page.evaluate(() => (window as Window & { __parleyXss?: string }).__parleyXss)).toBeUndefined();
  });

  test("corrupt stored rows are reported, the rest still renders", async ({ page, seed }) => {
    const session = await seed.session({ title: "Has a corrupt part" });
    const message = await seed.userMessage(session.id, [{ type: "text", text: "This part is fine." }]);
    const broken = await seed.corruptPart(message);
    const view = new SessionPage(page);
    await view.goto(session.id);
    await expect(page.getByText("This part is fine.")).toBeVisible();
    const warning = page.getByTestId("corrupt-warning");
    await expect(warning).toBeVisible();
    await expect(warning).toContainText(broken);
    await expect(warning).toContainText("could not be read");
  });
});
