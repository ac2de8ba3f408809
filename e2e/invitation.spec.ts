import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { AuthPages, TeamPageObject } from "./pages/auth-pages";
import { startInstance } from "./support/instance";
import { person, signUp } from "./support/people";

/**
 * Joining a team: the invitation page says which team and who invited, and the sign-up and
 * sign-in forms come with the invited email filled in. In invite-only mode (a second
 * instance on the same database, PARLEY_SIGNUP=invite; the main e2e server signs up
 * openly) someone without an invitation is told how to get one instead of a form.
 */

async function freshPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

/** An owner with a team of their own, who invites a new person; returns the link to pass on. */
async function invitation(browser: Browser) {
  const owner = await freshPage(browser);
  const olga = person("Olga");
  await signUp(owner, olga);
  const milo = person("Milo");
  const team = new TeamPageObject(owner);
  await team.goto();
  const link = await team.invite(milo.email);
  return { olga, milo, link, teamName: `${olga.name}'s team` };
}

// `account` (the worker's signed-up user) makes sure this is not a fresh install.
test("the invitation page names the team and who invited; signing in or up to accept starts with the invited email", async ({ browser, account: _account }) => {
  const { olga, milo, link, teamName } = await invitation(browser);
  const invitee = await freshPage(browser);
  await invitee.goto(link);
  await expect(invitee.getByRole("heading", { name: `Join ${teamName} on Parley` })).toBeVisible();
  const summary = invitee.getByTestId("invitation-summary");
  await expect(summary).toHaveText(`${olga.name} (${olga.email}) invited ${milo.email} to join ${teamName} as a member.`);

  await invitee.getByRole("main").getByRole("link", { name: "Sign in" }).click();
  await expect(invitee.getByTestId("sign-in-form").getByLabel("Email")).toHaveValue(milo.email);
  await invitee.goBack();

  await invitee.getByRole("link", { name: "Sign up to accept" }).click();
  const form = invitee.getByTestId("sign-up-form");
  await expect(form.getByLabel("Email")).toHaveValue(milo.email);
  await expect(invitee.getByTestId("sign-up-hint")).toHaveText(`${olga.name} invited ${milo.email} to join ${teamName}: create your account to accept.`);
  await form.getByLabel("Name").fill(milo.name);
  await form.getByLabel("Password").fill(milo.password);
  await form.getByRole("button", { name: "Sign up and join" }).click();
  await invitee.waitForURL((url) => url.pathname === "/");
  expect(await new AuthPages(invitee).activeTeam()).toBe(teamName);

  // Used, the link says so.
  const stranger = await freshPage(browser);
  await stranger.goto(link);
  await expect(stranger.getByTestId("invitation-invalid")).toContainText("already used");
});

test("in invite-only mode the sign-up page explains how to get an invitation instead of showing the form", async ({ browser, account: _account }) => {
  test.setTimeout(180_000);
  const { milo, link } = await invitation(browser);
  const invitationId = link.split("/").pop() ?? "";
  const instance = await startInstance(Number(process.env.PARLEY_E2E_PORT ?? 3100) + 2, { PARLEY_SIGNUP: "invite" });
  try {
    const visitor = await freshPage(browser);
    await visitor.goto(`${instance.baseURL}/sign-up`);
    await expect(visitor.getByRole("heading", { name: "Parley is invitation-only here" })).toBeVisible();
    await expect(visitor.getByTestId("invite-only")).toContainText("made from an invitation link");
    await expect(visitor.getByTestId("sign-up-form")).toHaveCount(0);
    await expect(visitor.getByTestId("invite-only").getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/sign-in");

    await visitor.goto(`${instance.baseURL}/sign-up?invitation=inv_${"x".repeat(32)}`);
    await expect(visitor.getByRole("heading", { name: "This invitation is no longer valid" })).toBeVisible();
    await expect(visitor.getByTestId("sign-up-form")).toHaveCount(0);

    // With a valid invitation, the form is there, for the invited email.
    await visitor.goto(`${instance.baseURL}/sign-up?invitation=${invitationId}`);
    await expect(visitor.getByTestId("sign-up-form").getByLabel("Email")).toHaveValue(milo.email);
  } finally {
    await instance.stop();
  }
});
