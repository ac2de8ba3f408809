import path from "node:path";
import * as Id from "../server/id";
import { Session } from "../server/session";
import * as SessionStatus from "../server/session/status";
import { expect, test } from "./fixtures";
import { DashboardPage } from "./pages/dashboard-page";
import { runLocks } from "./support/run-locks";
import { E2E_PROJECT_DIR, type Seeder } from "./support/seed";
import type { RunLock } from "../server/session/lock";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Row {
  title: string;
  project: "first" | "second";
  author: "me" | "ada";
  parent?: string;
  cost: number;
  tokens: number;
  status: "idle" | "busy" | "retry";
  ago: number;
  archived?: boolean;
  lines?: [number, number];
}

/** Local YYYY-MM-DD of a time (the browser runs in the same time zone). */
function localDay(time: number): string {
  const d = new Date(time);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/**
 * Five sessions across two projects and two authors, one of them the child of another,
 * with their cost, tokens, status, changed lines and update time set on the row as the
 * loop would have left them. Every title carries `tag`, so searching it isolates them.
 */
async function seedTeam(seed: Seeder, locks: RunLock, tag: string) {
  const now = Date.now();
  const teamId = seed.ctx.actor.teamId;
  const projectName = `second-${tag}`;
  const project = await seed.db.project.create({
    data: { id: Id.ascending("project"), teamId, name: projectName, directory: path.join(path.dirname(E2E_PROJECT_DIR), `second-${tag}`) },
  });
  const adaId = Id.ascending("user");
  await seed.db.user.create({ data: { id: adaId, email: `ada-${tag}@e2e.local`, name: `Ada ${tag}` } });
  await seed.db.membership.create({ data: { teamId, userId: adaId, role: "member" } });
  const firstProject = await seed.db.project.findUniqueOrThrow({ where: { id: seed.projectId } });

  const rows: Record<string, Row> = {
    alpha: { title: `Alpha ${tag}`, project: "first", author: "me", cost: 1.5, tokens: 1000, status: "busy", ago: HOUR, lines: [10, 2] },
    alphaChild: { title: `Alpha child ${tag}`, project: "first", author: "me", parent: "alpha", cost: 0.25, tokens: 300, status: "idle", ago: 2 * HOUR },
    beta: { title: `Beta ${tag}`, project: "second", author: "ada", cost: 3, tokens: 50, status: "idle", ago: 3 * DAY, lines: [5, 50] },
    gamma: { title: `Gamma ${tag}`, project: "second", author: "me", cost: 0.5, tokens: 5000, status: "retry", ago: 10 * DAY },
    delta: { title: `Delta ${tag}`, project: "first", author: "ada", cost: 2, tokens: 200, status: "idle", ago: DAY, archived: true },
  };
  const ids: Record<string, string> = {};
  for (const [key, row] of Object.entries(rows)) {
    const ctx = row.author === "me" ? seed.ctx : { ...seed.ctx, actor: { userId: adaId, teamId } };
    const info = await Session.create(ctx, {
      projectId: row.project === "first" ? seed.projectId : project.id,
      title: row.title,
      parentId: row.parent ? ids[row.parent] : undefined,
    });
    ids[key] = info.id;
    if (row.status !== "idle" && !(await locks.tryAcquire(info.id))) throw new Error(`could not hold the run lock of ${info.id}`);
    const updated = new Date(now - row.ago);
    await seed.db.session.update({
      where: { id: info.id },
      data: {
        cost: row.cost,
        tokensInput: row.tokens,
        tokensTotal: row.tokens,
        status: row.status,
        statusData: row.status === "retry" ? { type: "retry", attempt: 2, message: "rate limited", next: now + 60_000 } : undefined,
        timeUpdated: updated,
        timeArchived: row.archived ? updated : null,
        summaryAdditions: row.lines?.[0] ?? null,
        summaryDeletions: row.lines?.[1] ?? null,
        summaryFiles: row.lines ? 1 : null,
      },
    });
  }
  return { ids, now, projectName, firstProjectName: firstProject.name, adaName: `Ada ${tag}`, teamId };
}

/** `locks`: run locks held for the sessions a test shows as busy or retrying (see support/run-locks.ts). */
const withLocks = test.extend<{ locks: RunLock }>({
  locks: async ({}, provide) => {
    const locks = await runLocks();
    await provide(locks);
    await locks.close();
  },
});

withLocks("the dashboard lists the team's sessions as a tree, with filters, search, sort, totals and live status", async ({ page, seed, locks }) => {
  const tag = Date.now().toString(36);
  const { ids, now, projectName, adaName, teamId } = await seedTeam(seed, locks, tag);
  const dashboard = new DashboardPage(page);
  const totals = {
    sessions: dashboard.totals.getByTestId("totals-sessions"),
    cost: dashboard.totals.getByTestId("totals-cost"),
    tokens: dashboard.totals.getByTestId("totals-tokens"),
  };

  // Everything not archived, newest first, the child under its parent; totals over all four.
  await dashboard.goto(`?q=${tag}`);
  await dashboard.expectOutline([`Alpha ${tag}`, `  Alpha child ${tag}`, `Beta ${tag}`, `Gamma ${tag}`]);
  await expect(totals.sessions).toHaveText("4");
  await expect(totals.cost).toHaveText("$5.25");
  await expect(totals.tokens).toHaveAttribute("data-tokens", "6350");
  await expect(dashboard.totals.getByTestId("totals-lines")).toHaveText("+15 −52");
  const alpha = dashboard.row(`Alpha ${tag}`);
  await expect(alpha.getByTestId("row-status")).toHaveAttribute("data-status", "busy");
  await expect(alpha.getByTestId("row-cost")).toHaveText("$1.50");
  await expect(alpha.getByTestId("row-lines")).toHaveText("+10 −2");
  await expect(alpha).toContainText("1 child");
  await expect(dashboard.row(`Gamma ${tag}`).getByTestId("row-status")).toHaveAttribute("data-status", "retry");
  await expect(dashboard.row(`Beta ${tag}`)).toContainText(adaName);
  await expect(dashboard.row(`Beta ${tag}`)).toContainText(projectName);
  await expect(alpha.getByRole("link", { name: `Alpha ${tag}`, exact: true })).toHaveAttribute("href", `/sessions/${ids.alpha}`);

  // Collapsing a parent hides its children.
  await alpha.getByRole("button", { name: `Hide child sessions of Alpha ${tag}` }).click();
  await dashboard.expectOutline([`Alpha ${tag}`, `Beta ${tag}`, `Gamma ${tag}`]);
  await alpha.getByRole("button", { name: `Show child sessions of Alpha ${tag}` }).click();
  await dashboard.expectOutline([`Alpha ${tag}`, `  Alpha child ${tag}`, `Beta ${tag}`, `Gamma ${tag}`]);

  // Sort by cost, then by tokens (children stay under their parent).
  await dashboard.select("Sort by").selectOption("cost");
  await expect(page).toHaveURL(/sort=cost/);
  await dashboard.expectOutline([`Beta ${tag}`, `Alpha ${tag}`, `  Alpha child ${tag}`, `Gamma ${tag}`]);
  await dashboard.select("Sort by").selectOption("tokens");
  await dashboard.expectOutline([`Gamma ${tag}`, `Alpha ${tag}`, `  Alpha child ${tag}`, `Beta ${tag}`]);
  await expect(totals.sessions).toHaveText("4");
  await dashboard.select("Sort by").selectOption("updated");

  // Project, author, archived.
  await dashboard.select("Project").selectOption({ label: projectName });
  await dashboard.expectOutline([`Beta ${tag}`, `Gamma ${tag}`]);
  await expect(totals.cost).toHaveText("$3.50");
  await dashboard.select("Project").selectOption("");
  await dashboard.select("Author").selectOption({ label: adaName });
  await dashboard.expectOutline([`Beta ${tag}`]);
  await dashboard.select("Archived").selectOption("all");
  await dashboard.expectOutline([`Delta ${tag}`, `Beta ${tag}`]);
  await expect(totals.sessions).toHaveText("2");
  await expect(totals.cost).toHaveText("$5.00");
  await dashboard.select("Archived").selectOption("archived");
  await dashboard.expectOutline([`Delta ${tag}`]);

  // The filters live in the URL: a reload shows the same view.
  await page.reload();
  await dashboard.expectOutline([`Delta ${tag}`]);
  await expect(dashboard.select("Author")).toHaveValue(/.+/);
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(dashboard.search).toHaveValue("");

  // Title search (debounced into the URL).
  await dashboard.search.fill(`Beta ${tag}`);
  await expect(page).toHaveURL(/q=Beta/);
  await dashboard.expectOutline([`Beta ${tag}`]);
  await expect(totals.sessions).toHaveText("1");
  await dashboard.search.fill(tag);
  await dashboard.expectOutline([`Alpha ${tag}`, `  Alpha child ${tag}`, `Beta ${tag}`, `Gamma ${tag}`]);

  // Date range: updated within the last two days, then up to two days ago.
  await page.getByLabel("Updated from").fill(localDay(now - 2 * DAY));
  await dashboard.expectOutline([`Alpha ${tag}`, `  Alpha child ${tag}`]);
  await page.getByLabel("Updated from").fill("");
  await page.getByLabel("Updated to").fill(localDay(now - 2 * DAY));
  await dashboard.expectOutline([`Beta ${tag}`, `Gamma ${tag}`]);
  await page.getByLabel("Updated to").fill("");

  // Status: a child whose parent is filtered out stays listed, marked as a child.
  await dashboard.select("Status").selectOption("idle");
  await dashboard.expectOutline([`Alpha child ${tag}`, `Beta ${tag}`]);
  await expect(dashboard.row(`Alpha child ${tag}`).getByTestId("detached-parent")).toBeVisible();
  await dashboard.select("Status").selectOption("busy");
  await dashboard.expectOutline([`Alpha ${tag}`]);

  // Status changes arrive live: the child starts working and joins the "busy" view.
  expect(await locks.tryAcquire(ids.alphaChild ?? "")).toBe(true);
  await SessionStatus.set(seed.ctx, teamId, ids.alphaChild ?? "", { type: "busy" });
  await seed.flush();
  await dashboard.expectOutline([`Alpha ${tag}`, `  Alpha child ${tag}`]);
  await expect(dashboard.row(`Alpha child ${tag}`).getByTestId("row-status")).toHaveAttribute("data-status", "busy");
  await dashboard.select("Status").selectOption("");
  await SessionStatus.set(seed.ctx, teamId, ids.alphaChild ?? "", { type: "idle" });
  await seed.flush();
  await expect(dashboard.row(`Alpha child ${tag}`).getByTestId("row-status")).toHaveAttribute("data-status", "idle");

  // A new session of the team appears without a reload; a shared one links to its share page.
  const late = await seed.session({ title: `Epsilon ${tag}` });
  const shared = await Session.share(seed.ctx, late.id);
  await seed.flush();
  await dashboard.expectOutline([`Epsilon ${tag}`, `Alpha ${tag}`, `  Alpha child ${tag}`, `Beta ${tag}`, `Gamma ${tag}`]);
  await expect(dashboard.row(`Epsilon ${tag}`).getByTestId("row-share")).toHaveAttribute("href", shared.share?.url ?? "");
});

test("the dashboard pages through many sessions with load more", async ({ page, seed }) => {
  const tag = Date.now().toString(36);
  for (let i = 0; i < 55; i++) await seed.session({ title: `Many ${tag} #${i}` });
  await seed.flush();
  const dashboard = new DashboardPage(page);
  await dashboard.goto(`?q=${tag}`);
  await expect(dashboard.rows).toHaveCount(50);
  await expect(dashboard.totals.getByTestId("totals-sessions")).toHaveText("55");
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(dashboard.rows).toHaveCount(55);
  await expect(page.getByRole("button", { name: "Load more" })).toHaveCount(0);
  // The second page comes without totals: the first page's stay, and a re-read renews them.
  await expect(dashboard.totals.getByTestId("totals-sessions")).toHaveText("55");
  await expect(page.getByTestId("dashboard-shown")).toHaveText("Showing 55 of 55");
  await seed.session({ title: `Many ${tag} #55` });
  await seed.flush();
  await expect(dashboard.totals.getByTestId("totals-sessions")).toHaveText("56");
  await expect(dashboard.rows).toHaveCount(56);
  await expect(page.getByTestId("dashboard-shown")).toHaveText("Showing 56 of 56");
});
