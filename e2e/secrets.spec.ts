import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { tag } from "./support/people";
import { inviteMember } from "./support/invite";

/**
 * Team secrets on the Team page: an owner sets, replaces and removes one; the value is
 * write-only — never in the page again, not after a reload, not in the form — and a
 * member sees the name and who set it, with no way to change it.
 */

async function secretsSection(page: Page) {
  await page.goto("/team");
  const section = page.getByTestId("team-secrets");
  await expect(section).toBeVisible();
  return section;
}

test("an owner sets, replaces and removes a team secret; its value never shows again, and a member sees only its name", async ({ page, browser, account, seed }) => {
  test.setTimeout(90_000);
  const name = `gh-${tag()}`;
  const first = `tok-first-${tag()}-${tag()}`;
  const second = `tok-second-${tag()}-${tag()}`;

  let section = await secretsSection(page);
  const form = section.getByTestId("secret-form");
  await form.getByLabel("Secret name").fill(name);
  await form.getByLabel("Kind").selectOption({ label: "Git token" });
  await expect(form.getByTestId("secret-value")).toHaveAttribute("type", "password");
  await form.getByTestId("secret-value").fill(first);
  await form.getByRole("button", { name: "Save" }).click();

  const row = section.locator(`[data-testid="secret"][data-name="${name}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText("Git token");
  await expect(row.getByTestId("secret-set-by")).toContainText(`Set by ${account.name}`);
  // Write-only: the form is empty again, and neither the page nor a reload holds the value.
  await expect(form.getByTestId("secret-value")).toHaveValue("");
  expect(await page.content()).not.toContain(first);
  section = await secretsSection(page);
  await expect(row).toBeVisible();
  expect(await page.content()).not.toContain(first);

  // Replace: a new value for the same name, nothing pre-filled.
  await row.getByRole("button", { name: `Replace ${name}` }).click();
  await expect(form).toContainText(`New value for ${name}`);
  await expect(form.getByTestId("secret-value")).toHaveValue("");
  await form.getByTestId("secret-value").fill(second);
  await form.getByRole("button", { name: "Replace" }).click();
  await expect(form).not.toContainText("New value for");
  await expect(row).toHaveCount(1);
  expect(await page.content()).not.toContain(second);
  // Stored sealed: the database row holds neither value in the clear.
  const stored = await seed.db.teamSecret.findUniqueOrThrow({ where: { teamId_name: { teamId: seed.ctx.actor.teamId, name } } });
  expect(Buffer.from(stored.sealed).toString("latin1")).not.toContain(second);

  // A member of the team sees the name and who set it, read-only.
  const member = await inviteMember(browser, page);
  const memberSection = await secretsSection(member.page);
  await expect(memberSection.locator(`[data-testid="secret"][data-name="${name}"]`)).toBeVisible();
  await expect(memberSection.getByTestId("secrets-read-only")).toBeVisible();
  await expect(memberSection.getByTestId("secret-form")).toHaveCount(0);
  await expect(memberSection.getByRole("button", { name: `Remove ${name}` })).toHaveCount(0);
  expect(await member.page.content()).not.toContain(second);
  await seed.db.membership.deleteMany({ where: { teamId: seed.ctx.actor.teamId, user: { email: member.email } } });

  // Remove, after a confirmation.
  section = await secretsSection(page);
  await row.getByRole("button", { name: `Remove ${name}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
  await expect(row).toHaveCount(0);
  expect(await seed.db.teamSecret.count({ where: { teamId: seed.ctx.actor.teamId, name } })).toBe(0);
});
