import { type Locator, expect } from "@playwright/test";
import { PageObject } from "./page-object";

/** The sign-up and sign-in forms, the header's account menu, and the team page. */
export class AuthPages extends PageObject {
  readonly teamSwitcher = this.page.getByTestId("team-switcher");
  readonly signedInUser = this.page.getByTestId("signed-in-user");

  async fillSignUp(user: { name: string; email: string; password: string }): Promise<void> {
    const form = this.page.getByTestId("sign-up-form");
    await form.getByLabel("Name").fill(user.name);
    await form.getByLabel("Email").fill(user.email);
    await form.getByLabel("Password").fill(user.password);
    await form.getByRole("button", { name: /^Sign up/ }).click();
  }

  /** Opens an invitation link, signs up through it and waits for the team's session list. */
  async acceptInvitation(link: string, user: { name: string; email: string; password: string }): Promise<void> {
    await this.page.goto(link);
    await this.page.getByRole("link", { name: "Sign up to accept" }).click();
    await this.fillSignUp(user);
    await this.page.waitForURL((url) => url.pathname === "/");
  }

  async signIn(user: { email: string; password: string }): Promise<void> {
    const form = this.page.getByTestId("sign-in-form");
    await form.getByLabel("Email").fill(user.email);
    await form.getByLabel("Password").fill(user.password);
    await form.getByRole("button", { name: "Sign in" }).click();
  }

  async signOut(): Promise<void> {
    await this.page.getByRole("button", { name: "Sign out" }).click();
    await this.page.waitForURL(/\/sign-in/);
  }

  /** The name of the active team, as the switcher shows it. */
  async activeTeam(): Promise<string> {
    return (await this.teamSwitcher.locator("option:checked").textContent()) ?? "";
  }

  async switchTeam(name: string): Promise<void> {
    await this.teamSwitcher.selectOption({ label: name });
    await this.page.waitForURL((url) => url.pathname === "/");
    await expect(this.teamSwitcher.locator("option:checked")).toHaveText(name);
  }
}

/** The Team page (/team): its members, invitations and projects. */
export class TeamPageObject extends PageObject {
  readonly inviteForm = this.page.getByTestId("invite-form");
  readonly invitationLink = this.page.getByTestId("invitation-link");
  readonly projectForm = this.page.getByTestId("project-form");

  async goto(): Promise<void> {
    await this.page.goto("/team");
    await expect(this.page.getByTestId("team-name")).toBeVisible();
  }

  /** Invites `email` and returns the invitation link the page shows to pass on. */
  async invite(email: string, role: "member" | "admin" = "member"): Promise<string> {
    await this.inviteForm.getByLabel("Email").fill(email);
    await this.inviteForm.getByLabel("Role").selectOption(role);
    await this.inviteForm.getByRole("button", { name: "Invite" }).click();
    await expect(this.invitationLink).toHaveValue(/\/invite\/inv_/);
    return this.invitationLink.inputValue();
  }

  async addProject(directory: string): Promise<void> {
    await this.projectForm.getByLabel("Directory").fill(directory);
    await this.projectForm.getByRole("button", { name: "Add project" }).click();
  }

  /** Adds the project and waits until the page lists it. */
  async addListedProject(directory: string): Promise<void> {
    await this.addProject(directory);
    await expect(this.project(directory)).toBeVisible();
  }

  /** The listed project named `name` (its directory under the projects root). */
  project(name: string): Locator {
    return this.page.locator(`[data-testid="project"][data-name="${name}"]`);
  }

  member(email: string): Locator {
    return this.page.locator(`[data-testid="member"][data-email="${email}"]`);
  }
}
