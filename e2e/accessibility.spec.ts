import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { DashboardPage } from "./pages/dashboard-page";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";
import { SharePage } from "./pages/share-page";
import { seedSampleChat } from "./support/sample-chat";

/**
 * axe-core (every rule it has, WCAG 2.x A/AA and best practices) over the main pages, in
 * the light and the dark theme: no serious or critical violation may remain — colour
 * contrast included, which is where a theme goes wrong.
 */

type Scheme = "light" | "dark";

async function expectNoSeriousViolations(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = serious
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.slice(0, 5).map((n) => `    ${n.target.join(" ")} — ${n.failureSummary?.replace(/\s+/g, " ") ?? ""}`).join("\n")}`)
    .join("\n");
  expect(serious, `${where}: serious or critical accessibility violations:\n${report}`).toEqual([]);
}

for (const scheme of ["light", "dark"] as const satisfies Scheme[]) {
  test(`no serious or critical accessibility violations on the main pages, ${scheme} theme`, async ({ page, browser, seed }) => {
    test.setTimeout(120_000);
    // The theme follows the device ("system" is the default).
    await page.emulateMedia({ colorScheme: scheme });
    const title = `Accessible ${scheme} ${Date.now().toString(36)}`;
    const { session, sharePath } = await seedSampleChat(seed, title, { share: true });

    const visitor = await (await browser.newContext({ colorScheme: scheme })).newPage();
    await visitor.goto("/sign-in");
    await expect(visitor.getByTestId("sign-in-form")).toBeVisible();
    await expectNoSeriousViolations(visitor, "sign-in");

    if (!sharePath) throw new Error("not shared");
    const share = new SharePage(visitor);
    await share.goto(sharePath);
    await expect(share.part("tool")).toHaveCount(2);
    await expectNoSeriousViolations(visitor, "share page");

    const list = new SessionListPage(page);
    await list.goto();
    await expect(list.row(title)).toBeVisible();
    await expectNoSeriousViolations(page, "session list");

    const chat = new SessionPage(page);
    await chat.goto(session.id);
    await expect(chat.part("tool")).toHaveCount(2);
    await expect(chat.part("text").last()).toContainText("Done");
    await expectNoSeriousViolations(page, "chat");

    const dashboard = new DashboardPage(page);
    await dashboard.goto();
    await expect(dashboard.row(title)).toBeVisible();
    await expectNoSeriousViolations(page, "dashboard");

    await page.goto("/team");
    await expect(page.getByTestId("team-name")).toBeVisible();
    await expect(page.getByTestId("permission-policy").getByRole("status").filter({ hasText: "Loading the rules" })).toHaveCount(0);
    await expectNoSeriousViolations(page, "team page");
  });
}
