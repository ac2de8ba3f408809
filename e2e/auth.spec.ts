import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { AuthPages, TeamPageObject } from "./pages/auth-pages";
import { person, projectFolder, signUp, tag } from "./support/people";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";

/**
 * Sign-up, sign-in and teams in the browser. Every test starts from browser
 * contexts of its own with no sign-in (not the fixture's signed-in `page`). The e2e server
 * runs with open sign-up, so a user without an invitation gets a team of their own.
 */

async function freshPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  return context.newPage();
}

/** A new user, signed up in a browser context of their own (a team of their own, named `teamName`), on the Team page. */
async function signedUpOnTeamPage(browser: Browser, name: string) {
  const page = await freshPage(browser);
  const user = person(name);
  const auth = await signUp(page, user);
  const teamName = await auth.activeTeam();
  const team = new TeamPageObject(page);
  await team.goto();
  return { page, user, auth, teamName, team };
}

// `account` (the worker's signed-up user) makes sure this is not a fresh install, where
// sign-in would send straight to sign-up (the first user: server/auth tests).
test("a new user is sent to sign in, signs up into a team of their own, signs out and back in", async ({ browser, account: _account }) => {
  const page = await freshPage(browser);
  const ada = person("Ada");

  // Any members' page sends someone signed out to sign in, remembering where they were going.
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fdashboard$/);
  await page.getByRole("link", { name: "Sign up" }).click();
  await expect(page.getByTestId("sign-up-hint")).toBeVisible();
  // The password rule is beside its field before anything is typed, and describes the field.
  await expect(page.getByTestId("password-rule")).toHaveText("At least 8 characters (up to 128).");
  await expect(page.getByTestId("sign-up-form").getByLabel("Password")).toHaveAccessibleDescription("At least 8 characters (up to 128).");
  const auth = new AuthPages(page);
  await auth.fillSignUp(ada);
  await page.waitForURL((url) => url.pathname === "/");
  await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
  expect(await auth.activeTeam()).toBe(`${ada.name}'s team`);
  await expect(auth.signedInUser).toHaveText(ada.name);

  const team = new TeamPageObject(page);
  await team.goto();
  await expect(page.getByTestId("team-name")).toHaveText(`${ada.name}'s team`);
  await expect(team.member(ada.email)).toContainText("owner");

  // A wrong password is refused with a message; the same email cannot sign up twice.
  await auth.signOut();
  await page.goto("/team");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fteam$/);
  await auth.signIn({ email: ada.email, password: "wrong password!" });
  await expect(page.getByTestId("auth-error")).toBeVisible();
  await auth.signIn(ada);
  await page.waitForURL((url) => url.pathname === "/team");
  await expect(page.getByTestId("team-name")).toHaveText(`${ada.name}'s team`);
});

test("an admin invites a second user, who signs up through the link and works in the team until removed; another team's user cannot open its session", async ({ browser }) => {
  // The owner sets up a project and a session.
  const { page: owner, user: olga, teamName, team } = await signedUpOnTeamPage(browser, "Olga");
  const folder = projectFolder(`auth-${tag()}`);
  await team.addProject("../outside");
  await expect(owner.getByRole("alert").filter({ hasText: "outside the projects root" })).toBeVisible();
  await team.addListedProject(folder);

  const sessionId = await new SessionListPage(owner).createSessionIn(folder);
  const title = `Team plan ${tag()}`;
  await new SessionPage(owner).rename(title);

  // The invitation: a link to pass on, accepted by a new user in another browser.
  await team.goto();
  const milo = person("Milo");
  const link = await team.invite(milo.email);
  await expect(owner.locator(`[data-testid="invitation"][data-email="${milo.email}"]`)).toBeVisible();

  const invitee = await freshPage(browser);
  const inviteeAuth = new AuthPages(invitee);
  await inviteeAuth.acceptInvitation(link, milo);
  expect(await inviteeAuth.activeTeam()).toBe(teamName);
  await new SessionListPage(invitee).row(title).getByRole("link", { name: title, exact: true }).click();
  await invitee.waitForURL(`**/sessions/${sessionId}`);
  await expect(new SessionPage(invitee).title).toHaveText(title);

  // A member sees the team but cannot invite.
  const inviteeTeam = new TeamPageObject(invitee);
  await inviteeTeam.goto();
  await expect(inviteeTeam.member(milo.email)).toContainText("member");
  await expect(inviteeTeam.member(olga.email)).toContainText("owner");
  await expect(inviteeTeam.inviteForm).toHaveCount(0);
  await expect(inviteeTeam.projectForm).toHaveCount(0);

  // The owner sees the invitation used, and the new member.
  await team.goto();
  await expect(team.member(milo.email)).toBeVisible();
  await expect(owner.locator(`[data-testid="invitation"][data-email="${milo.email}"]`)).toHaveCount(0);

  // Someone of another team gets nothing from the session's URL, nor in their list.
  const stranger = await freshPage(browser);
  await signUp(stranger, person("Stan"));
  await stranger.goto(`/sessions/${sessionId}`);
  await expect(stranger.getByText("Session not found")).toBeVisible();
  await stranger.goto("/");
  await expect(stranger.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
  await expect(stranger.locator(`a[href="/sessions/${sessionId}"]`)).toHaveCount(0);

  // Removed from the team, the member is out at once: no session, no team pages.
  await team.goto();
  await team.member(milo.email).getByRole("button", { name: "Remove" }).click();
  await expect(team.member(milo.email)).toHaveCount(0);
  await invitee.goto(`/sessions/${sessionId}`);
  await invitee.waitForURL("**/welcome");
  await expect(invitee.getByRole("heading", { name: "You are not in a team yet" })).toBeVisible();

  // Signing out ends it: the session URL now asks to sign in.
  await inviteeAuth.signOut();
  await invitee.goto(`/sessions/${sessionId}`);
  await expect(invitee).toHaveURL(new RegExp(`/sign-in\\?next=%2Fsessions%2F${sessionId}$`));
});

test("a user in two teams switches between them and sees each team's sessions only", async ({ browser }) => {
  const { page, auth, teamName: firstTeam, team } = await signedUpOnTeamPage(browser, "Tess");
  const folder = projectFolder(`switch-${tag()}`);
  await team.addListedProject(folder);
  const list = new SessionListPage(page);
  const sessionId = await list.createSessionIn(folder);

  // A second team, from the switcher.
  await list.goto();
  await auth.teamSwitcher.selectOption({ label: "New team…" });
  await page.waitForURL("**/welcome");
  const side = `Side ${tag()}`;
  await page.getByTestId("create-team-form").getByLabel("Team name").fill(side);
  await page.getByRole("button", { name: "Create team" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  expect(await auth.activeTeam()).toBe(side);
  await expect(page.getByTestId("add-project-link")).toBeVisible();
  await expect(page.locator(`a[href="/sessions/${sessionId}"]`)).toHaveCount(0);
  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByText("Session not found")).toBeVisible();

  await page.goto("/");
  await auth.switchTeam(firstTeam);
  await expect(page.locator(`a[href="/sessions/${sessionId}"]`).first()).toBeVisible();
});

test("an open tab renews its sign-in through /get-session when it opens and when it comes back into view", async ({ page }) => {
  const renewals: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/api/auth/get-session") renewals.push(request.url());
  });
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
  await expect.poll(() => renewals.length).toBeGreaterThanOrEqual(1);
  const opened = renewals.length;
  // The tab is hidden, then shown again (as when the user comes back to it).
  await page.evaluate(() => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "visible" });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  await expect.poll(() => renewals.length).toBeGreaterThan(opened);
});
