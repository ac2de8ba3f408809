import type { Browser, BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { AuthPages, TeamPageObject } from "./pages/auth-pages";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";
import { person, projectFolder, signUp, tag } from "./support/people";

/**
 * A session page left open keeps its live stream: once the member is removed from the team,
 * or signs out in another tab, that stream must end — the page gets none of the team's
 * later changes (here: the session's new title, which an open page shows live).
 */

async function signedUpOwner(browser: Browser) {
  const owner = await (await browser.newContext()).newPage();
  await signUp(owner, person("Olga"));
  const team = new TeamPageObject(owner);
  await team.goto();
  const folder = projectFolder(`access-${tag()}`);
  await team.addListedProject(folder);
  const sessionId = await new SessionListPage(owner).createSessionIn(folder);
  await new SessionPage(owner).rename(`Plans ${tag()}`);
  return { owner, team, sessionId };
}

/** A new member of the owner's team, signed up through an invitation link, in a browser context of their own. */
async function invitedMember(browser: Browser, team: TeamPageObject): Promise<{ context: BrowserContext; page: Page; email: string }> {
  await team.goto();
  const milo = person("Milo");
  const link = await team.invite(milo.email);
  const context = await browser.newContext();
  const page = await context.newPage();
  await new AuthPages(page).acceptInvitation(link, milo);
  return { context, page, email: milo.email };
}

/** The owner renames the session from its page. */
async function rename(owner: Page, sessionId: string, title: string): Promise<void> {
  if (new URL(owner.url()).pathname !== `/sessions/${sessionId}`) await owner.goto(`/sessions/${sessionId}`);
  await new SessionPage(owner).rename(title);
}

/** The member's open session page shows a rename by the owner live (the stream works). */
async function followsLive(owner: Page, member: Page, sessionId: string): Promise<void> {
  await member.goto(`/sessions/${sessionId}`);
  const seen = new SessionPage(member);
  await expect(seen.title).toBeVisible();
  const live = `Live ${tag()}`;
  await rename(owner, sessionId, live);
  await expect(seen.title).toHaveText(live);
}

test("a member removed from the team stops receiving the session's live changes on the page they left open", async ({ browser }) => {
  const { owner, team, sessionId } = await signedUpOwner(browser);
  const member = await invitedMember(browser, team);
  await followsLive(owner, member.page, sessionId);
  const before = await new SessionPage(member.page).title.textContent();

  await team.goto();
  await team.member(member.email).getByRole("button", { name: "Remove" }).click();
  await expect(team.member(member.email)).toHaveCount(0);
  const secret = `After removal ${tag()}`;
  await rename(owner, sessionId, secret);
  // Long enough for a live event to arrive (they take milliseconds); it must not.
  await member.page.waitForTimeout(2_000);
  await expect(member.page.getByText(secret)).toHaveCount(0);
  expect(before).not.toBe(secret);
  await member.context.close();
});

test("signing out in one tab ends the live stream of the session page open in another tab", async ({ browser }) => {
  const { owner, team, sessionId } = await signedUpOwner(browser);
  const member = await invitedMember(browser, team);
  await followsLive(owner, member.page, sessionId);

  const other = await member.context.newPage();
  await other.goto("/");
  await new AuthPages(other).signOut();
  const secret = `After sign-out ${tag()}`;
  await rename(owner, sessionId, secret);
  await member.page.waitForTimeout(2_000);
  await expect(member.page.getByText(secret)).toHaveCount(0);
  await member.context.close();
});
