import { type Locator, expect } from "@playwright/test";
import { PageObject } from "./page-object";

/** The team's session list at "/". */
export class SessionListPage extends PageObject {
  readonly heading = this.page.getByRole("heading", { name: "Sessions", level: 1 });
  readonly newSessionButton = this.page.getByRole("button", { name: "New session" });
  readonly search = this.page.getByRole("searchbox", { name: "Search sessions" });
  readonly rows = this.page.getByTestId("session-row");

  async goto(query = ""): Promise<void> {
    await this.page.goto(`/${query}`);
    await expect(this.heading).toBeVisible();
  }

  /** Clicks "New session" and waits for the new session's page; returns its id. */
  async createSession(): Promise<string> {
    await expect(this.newSessionButton).toBeEnabled();
    await this.newSessionButton.click();
    await this.page.waitForURL(/\/sessions\/ses_[0-9a-zA-Z]+$/);
    return new URL(this.page.url()).pathname.split("/").pop() ?? "";
  }

  /** Opens the list, picks the project `folder` when the team has several, and creates a session in it; returns its id. */
  async createSessionIn(folder: string): Promise<string> {
    await this.goto();
    const picker = this.page.getByTestId("project-picker");
    if (await picker.isVisible()) await picker.selectOption({ label: folder });
    return this.createSession();
  }

  row(title: string): Locator {
    return this.rows.filter({ has: this.page.getByRole("link", { name: title, exact: true }) });
  }

  async showArchived(): Promise<void> {
    await this.page.getByRole("button", { name: "Archived", exact: true }).click();
    await expect(this.page).toHaveURL(/archived=1/);
  }

  async showActive(): Promise<void> {
    await this.page.getByRole("button", { name: "Active", exact: true }).click();
    await expect(this.page).not.toHaveURL(/archived=1/);
  }
}
