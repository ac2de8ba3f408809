import { type Locator, type Page, expect } from "@playwright/test";

/** The team's session list at "/". */
export class SessionListPage {
  readonly heading: Locator;
  readonly newSessionButton: Locator;
  readonly search: Locator;
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Sessions", level: 1 });
    this.newSessionButton = page.getByRole("button", { name: "New session" });
    this.search = page.getByRole("searchbox", { name: "Search sessions" });
    this.rows = page.getByTestId("session-row");
  }

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
