import { Session } from "../server/session";
import * as Event from "../server/session/events";
import { expect, test } from "./fixtures";
import { Chat } from "./pages/chat";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";

const OFFLINE = { providerId: "offline", modelId: "parley-offline" };
/** The offline model's usable context: 32,000 − min(4,096, 32,000) (server/provider/models.ts). */
const OFFLINE_USABLE = 27_904;
const DEFAULT_TITLE = /^New session - [A-Z][a-z]{2} \d{1,2}, \d{4}/;

test.describe("context and compaction in the chat", () => {
  test.setTimeout(90_000);

  test("filling the context compacts automatically, live; Compact compacts on request; the title is generated", async ({ page, seed }) => {
    const session = await seed.session();
    const view = new SessionPage(page);
    const chat = new Chat(page);
    await view.goto(session.id);
    await expect(view.title).toHaveText(DEFAULT_TITLE);
    const meter = page.getByTestId("context-meter");
    await expect(meter).toHaveAttribute("data-usable", String(OFFLINE_USABLE));
    await expect(meter).toHaveAttribute("data-used", "0");

    // The team's session list, open in another tab, shows the default title for now.
    const listTab = await page.context().newPage();
    const list = new SessionListPage(listTab);
    await list.goto();
    await expect(list.rows.filter({ hasText: session.title })).toHaveCount(1);

    await page.bringToFront();
    await chat.ask("fill the context");
    // The marker and the summary arrive live; the summary stays collapsed until asked for.
    const compactions = page.getByTestId("compaction");
    await expect(compactions).toHaveCount(1);
    const auto = compactions.first();
    await expect(auto).toContainText("Conversation compacted");
    await expect(auto).toContainText("automatically, context was full");
    await expect(auto).toHaveAttribute("data-state", "done");
    await expect(auto.getByTestId("compaction-summary")).toHaveCount(0);
    await auto.getByTestId("compaction-summary-toggle").click();
    await expect(auto.getByTestId("compaction-summary")).toContainText("fill the context");
    await auto.getByTestId("compaction-summary-toggle").click();
    await expect(auto.getByTestId("compaction-summary")).toHaveCount(0);
    // The agent went on after the summary; the meter follows the newest finished step.
    await chat.waitIdle();
    await expect(meter).not.toHaveAttribute("data-used", "0");
    const used = Number(await meter.getAttribute("data-used"));
    expect(used).toBeLessThan(OFFLINE_USABLE);

    // The title was generated in the background and shows without a reload, here and in the list.
    await expect(view.title).not.toHaveText(DEFAULT_TITLE);
    const title = ((await view.title.textContent()) ?? "").trim();
    expect(title).not.toBe("");
    await expect(list.row(title)).toBeVisible();
    await expect(list.rows.filter({ hasText: session.title })).toHaveCount(0);
    await listTab.close();

    // Compact on request.
    const compact = page.getByTestId("compact-button");
    await expect(compact).toBeEnabled();
    await compact.click();
    await expect(compactions).toHaveCount(2);
    const manual = compactions.nth(1);
    await expect(manual).toContainText("on request");
    await expect(manual).toHaveAttribute("data-state", "done");
    await expect(manual.getByTestId("compaction-summary-toggle")).toBeVisible();
    await expect(page.getByTestId("compact-error")).toHaveCount(0);
  });

  test("the meter measures the last finished step against the model's usable context, live", async ({ page, seed }) => {
    const session = await seed.session({ title: `Context meter ${Date.now().toString(36)}` });
    const ask = await seed.userMessage(session.id, [{ type: "text", text: "Read everything." }], { model: OFFLINE });
    const tokens = (input: number) => ({ input, output: 0, reasoning: 0, cache: { read: 0, write: 0 } });
    await seed.assistantMessage(session.id, ask.id, [{ type: "text", text: "Half full.", time: { start: 1, end: 2 } }], { tokens: tokens(OFFLINE_USABLE / 2) });
    const view = new SessionPage(page);
    await view.goto(session.id);
    const meter = page.getByTestId("context-meter");
    await expect(meter).toHaveAttribute("data-used", String(OFFLINE_USABLE / 2));
    await expect(page.getByTestId("context-meter-text")).toHaveText("14K / 27.9K (50%)");

    // A step that is still streaming does not count; once finished it does.
    const next = await seed.userMessage(session.id, [{ type: "text", text: "And more." }], { model: OFFLINE });
    const reply = await seed.assistantMessage(session.id, next.id, [], { completed: false, tokens: tokens(25_000) });
    await seed.flush();
    await expect(page.getByText("And more.")).toBeVisible();
    await expect(meter).toHaveAttribute("data-used", String(OFFLINE_USABLE / 2));
    await Session.updateMessage(seed.ctx, { ...reply, finish: "stop", time: { created: reply.time.created, completed: Date.now() }, tokens: tokens(OFFLINE_USABLE) });
    await seed.flush();
    await expect(meter).toHaveAttribute("data-used", String(OFFLINE_USABLE));
    await expect(page.getByTestId("context-meter-text")).toHaveText("27.9K / 27.9K (100%)");
  });

  test("“Compacting…” shows while time.compacting is set, the Compact button waits, and it is offered only once there is something to compact", async ({ page, seed }) => {
    const session = await seed.session({ title: `Compacting ${Date.now().toString(36)}` });
    const view = new SessionPage(page);
    await view.goto(session.id);
    // Nothing to summarize yet (0 tokens): no Compact button.
    await expect(page.getByTestId("session-tokens")).toBeVisible();
    await expect(page.getByTestId("compact-button")).toHaveCount(0);

    const ask = await seed.userMessage(session.id, [{ type: "text", text: "Hello" }]);
    await seed.assistantMessage(session.id, ask.id, [{ type: "text", text: "Hi.", time: { start: 1, end: 2 } }], {
      tokens: { input: 100, output: 10, reasoning: 0, cache: { read: 0, write: 0 } },
    });
    await seed.flush();
    await view.goto(session.id);
    const compact = page.getByTestId("compact-button");
    await expect(compact).toBeEnabled();

    const publish = async () => {
      const info = await Session.get(seed.ctx, session.id);
      seed.ctx.bus.publish(Event.Updated, { info }, { teamId: info.teamId, sessionId: info.id });
      await seed.flush();
    };
    await seed.db.session.update({ where: { id: session.id }, data: { timeCompacting: new Date() } });
    await publish();
    await expect(page.getByTestId("compacting")).toBeVisible();
    await expect(compact).toBeDisabled();
    await seed.db.session.update({ where: { id: session.id }, data: { timeCompacting: null } });
    await publish();
    await expect(page.getByTestId("compacting")).toHaveCount(0);
    await expect(compact).toBeEnabled();
  });
});
