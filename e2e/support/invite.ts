import { type Browser, type Page, expect } from "@playwright/test";
import { AuthPages, TeamPageObject } from "../pages/auth-pages";
import { E2E_PASSWORD } from "./auth";

/**
 * The owner (on `owner`) invites a new user as a member; they sign up through the link in
 * a browser of their own and land in the owner's team. Returns their page and email.
 */
export async function inviteMember(browser: Browser, owner: Page): Promise<{ page: Page; email: string }> {
  const tag = `${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;
  const who = { name: `Member ${tag}`, email: `member-${tag}@e2e.parley.test`, password: E2E_PASSWORD };
  const team = new TeamPageObject(owner);
  await team.goto();
  const teamName = (await owner.getByTestId("team-name").textContent()) ?? "";
  const link = await team.invite(who.email, "member");

  const page = await (await browser.newContext()).newPage();
  await page.goto(link);
  await page.getByRole("link", { name: "Sign up to accept" }).click();
  const auth = new AuthPages(page);
  await auth.fillSignUp(who);
  await page.waitForURL((url) => url.pathname === "/");
  expect(await auth.activeTeam()).toBe(teamName);
  return { page, email: who.email };
}
