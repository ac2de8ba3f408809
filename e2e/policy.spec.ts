import type { Page } from "@playwright/test";
import { Prisma } from "../server/db/client";
import { expect, test } from "./fixtures";
import { ApprovalsPage } from "./pages/approvals-page";
import { Chat } from "./pages/chat";
import { PermissionPrompt } from "./pages/permission-prompt";
import { SessionPage } from "./pages/session-page";
import { PermissionPolicySection } from "./pages/team-page";
import { inviteMember } from "./support/invite";
import type { Seeder } from "./support/seed";

/**
 * The team's permission policy and its "Always allow" approvals in the browser, against
 * the built-in offline model (`run ls -la` runs the bash tool, which asks by default).
 * The worker's user owns its team; the policy and the `ls *` approvals are reset around
 * every test, since the other specs of the worker share that team.
 */

const COMMAND = "ls -la";
const REMEMBERED = "ls *";

async function resetPolicy(seed: Seeder): Promise<void> {
  await seed.db.team.update({ where: { id: seed.ctx.actor.teamId }, data: { permission: Prisma.DbNull } });
  await seed.db.project.update({ where: { id: seed.projectId }, data: { permission: Prisma.DbNull } });
  await seed.db.permissionApproval.deleteMany({ where: { projectId: seed.projectId, permission: "bash", pattern: REMEMBERED } });
}

async function projectName(seed: Seeder): Promise<string> {
  return (await seed.db.project.findUniqueOrThrow({ where: { id: seed.projectId } })).name;
}

function bashTool(page: Page, command: string) {
  return new SessionPage(page).part("tool").filter({ hasText: `$ ${command}` });
}

test.beforeEach(async ({ seed }) => resetPolicy(seed));
test.afterEach(async ({ seed }) => resetPolicy(seed));

test("an admin's team rule denies a member's command with no question; the member sees the policy read-only and cannot save it", async ({
  page,
  browser,
  seed,
}) => {
  test.setTimeout(90_000);
  const project = await projectName(seed);

  // The owner denies `ls *` for every project of the team.
  const policy = new PermissionPolicySection(page);
  await policy.goto();
  await expect(policy.scope.locator("option:checked")).toHaveText("All projects");
  await expect(policy.section.getByTestId("policy-order")).toContainText("A deny here cannot be undone by sessions, agents or approvals.");
  await expect(policy.section.getByTestId("rules-empty")).toBeVisible();
  await policy.addRule({ permission: "bash", pattern: REMEMBERED, action: "deny" });
  await expect(policy.status).toHaveText("Unsaved changes.");
  await policy.save();
  await expect
    .poll(async () => (await seed.db.team.findUniqueOrThrow({ where: { id: seed.ctx.actor.teamId } })).permission)
    .toEqual([{ permission: "bash", pattern: REMEMBERED, action: "deny" }]);

  // The project's own rules are a separate scope (still empty); the team's rule is kept.
  await policy.chooseScope(project);
  await expect(policy.section.getByTestId("rules-empty")).toContainText(`No rules for ${project}`);
  await policy.chooseScope("All projects");
  await expect(policy.rules).toHaveCount(1);
  await expect(policy.form.getByRole("textbox", { name: "Pattern of rule 1" })).toHaveValue(REMEMBERED);

  // A member of the team runs the command in a session of the team's project.
  const member = await inviteMember(browser, page);
  const session = await seed.session({ title: `Policy deny ${Date.now().toString(36)}` });
  const view = new SessionPage(member.page);
  await view.goto(session.id);
  await new Chat(member.page).ask(`run ${COMMAND}`);
  const tool = bashTool(member.page, COMMAND);
  await expect(tool).toHaveAttribute("data-tool-status", "error");
  const error = tool.getByTestId("tool-error");
  await expect(error).toContainText("denied by the rule");
  await expect(error).toContainText("team policy");
  await expect(error).toContainText(`pattern: "${REMEMBERED}"`);
  await expect(new PermissionPrompt(member.page).requests).toHaveCount(0);
  expect(await seed.db.permissionRequest.count({ where: { sessionId: session.id } })).toBe(0);

  // The member sees the rule as text, is told only admins change it, and has no way to save.
  const memberPolicy = new PermissionPolicySection(member.page);
  await memberPolicy.goto();
  await expect(memberPolicy.readOnlyNote).toHaveText("Only the team’s owners and admins can change the permission policy.");
  await expect(memberPolicy.rules).toHaveCount(1);
  await expect(memberPolicy.rule(0)).toContainText("bash");
  await expect(memberPolicy.rule(0)).toContainText(REMEMBERED);
  await expect(memberPolicy.rule(0)).toContainText("deny");
  await expect(memberPolicy.form).toHaveCount(0);
  await expect(memberPolicy.section.getByRole("button", { name: "Save policy" })).toHaveCount(0);
  await expect(memberPolicy.section.getByRole("textbox")).toHaveCount(0);
  // The server refuses the member too, and the rule stays.
  const response = await member.page.request.post("/api/trpc/permission.setPolicy", { data: { rules: [] } });
  expect(response.status()).toBe(403);
  expect(await response.text()).toContain("Only team owners and admins can change the permission policy");
  expect((await seed.db.team.findUniqueOrThrow({ where: { id: seed.ctx.actor.teamId } })).permission).toEqual([
    { permission: "bash", pattern: REMEMBERED, action: "deny" },
  ]);

  await seed.db.membership.deleteMany({ where: { teamId: seed.ctx.actor.teamId, user: { email: member.email } } });
});

test("an 'Always allow' answer is listed on the approvals page with its granter; once revoked, the command asks again", async ({ page, seed, account }) => {
  test.setTimeout(90_000);
  const project = await projectName(seed);
  const session = await seed.session({ title: `Policy approvals ${Date.now().toString(36)}` });
  const view = new SessionPage(page);
  const asks = new PermissionPrompt(page);
  const chat = new Chat(page);
  await view.goto(session.id);

  await chat.ask(`run ${COMMAND}`);
  const card = asks.request(COMMAND);
  await expect(card).toBeVisible();
  await expect(card.getByTestId("permission-always")).toContainText(REMEMBERED);
  await expect(card.getByRole("link", { name: "Approvals page" })).toHaveAttribute("href", "/team/approvals");
  await asks.allowAlways(COMMAND);
  await expect(bashTool(page, COMMAND)).toHaveAttribute("data-tool-status", "completed");

  // From the Team page to the approvals: the exact pattern, where, for whom, by whom.
  const approvals = new ApprovalsPage(page);
  await page.goto("/team");
  await page.getByTestId("approvals-link").click();
  await page.waitForURL((url) => url.pathname === "/team/approvals");
  await expect(approvals.heading).toBeVisible();
  const row = approvals.row("bash", REMEMBERED);
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("approval-pattern")).toHaveText(REMEMBERED);
  await expect(row.getByTestId("approval-pattern")).toHaveCSS("font-family", /mono/i);
  await expect(row.getByTestId("approval-granted-by")).toHaveText(account.name);
  // The account owns its team: its approval also answers the questions the policy asks.
  await expect(row.getByTestId("approval-by-admin")).toBeVisible();
  await expect(row).toContainText(project);
  await expect(row).toContainText("build");
  await expect(row.locator("time")).toBeVisible();

  // Filtered to its project it is still there.
  await approvals.filterByProject(project);
  await expect(row).toHaveCount(1);

  await approvals.revoke(row);
  await expect.poll(() => seed.db.permissionApproval.count({ where: { projectId: seed.projectId, permission: "bash", pattern: REMEMBERED } })).toBe(0);
  await approvals.goto();
  await expect(approvals.row("bash", REMEMBERED)).toHaveCount(0);

  // Revoked: the same command asks again.
  await view.goto(session.id);
  await chat.ask(`run ${COMMAND}`);
  await expect(asks.request(COMMAND)).toBeVisible();
  await asks.reject(COMMAND);
  await expect(view.tool("error").filter({ hasText: `$ ${COMMAND}` })).toHaveCount(1);
});
