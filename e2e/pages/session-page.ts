import { type Locator, type Page, expect } from "@playwright/test";

/** One session at /sessions/<id>. */
export class SessionPage {
  readonly title: Locator;
  readonly actions: Locator;
  readonly messages: Locator;

  constructor(readonly page: Page) {
    this.title = page.getByTestId("session-title");
    this.actions = page.getByRole("toolbar", { name: "Session actions" });
    this.messages = page.getByTestId("message");
  }

  async goto(sessionId: string): Promise<void> {
    await this.page.goto(`/sessions/${sessionId}`);
    await expect(this.title).toBeVisible();
  }

  get sessionId(): string {
    return new URL(this.page.url()).pathname.split("/").pop() ?? "";
  }

  part(type: string): Locator {
    return this.page.locator(`[data-part-type="${type}"]`);
  }

  tool(status: "pending" | "running" | "completed" | "error"): Locator {
    return this.page.locator(`[data-part-type="tool"][data-tool-status="${status}"]`);
  }

  /** Opens the header's details (the session's actions, share link, directory, step usage) unless open. */
  async openDetails(): Promise<void> {
    const toggle = this.page.getByTestId("session-details-toggle");
    if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
    await expect(this.page.getByTestId("session-details")).toBeVisible();
  }

  async rename(title: string): Promise<void> {
    await this.openDetails();
    await this.actions.getByRole("button", { name: "Rename" }).click();
    const input = this.page.getByRole("textbox", { name: "Session title" });
    await input.fill(title);
    await input.press("Enter");
    await expect(this.title).toHaveText(title);
  }

  /** Forks and waits for the fork's page; returns the fork's id. */
  async fork(): Promise<string> {
    const before = this.sessionId;
    await this.openDetails();
    await this.actions.getByRole("button", { name: "Fork" }).click();
    await this.page.waitForURL((url) => /\/sessions\/ses_/.test(url.pathname) && !url.pathname.endsWith(before));
    await expect(this.title).toBeVisible();
    return this.sessionId;
  }

  async archive(): Promise<void> {
    await this.openDetails();
    await this.actions.getByRole("button", { name: "Archive", exact: true }).click();
    await expect(this.page.getByTestId("archived-badge")).toBeVisible();
    await expect(this.actions.getByRole("button", { name: "Unarchive" })).toBeVisible();
  }

  async unarchive(): Promise<void> {
    await this.openDetails();
    await this.actions.getByRole("button", { name: "Unarchive" }).click();
    await expect(this.page.getByTestId("archived-badge")).toHaveCount(0);
  }

  /** Deletes through the confirmation dialog and waits for the session list. */
  async delete(): Promise<void> {
    await this.openDetails();
    await this.actions.getByRole("button", { name: "Delete" }).click();
    const dialog = this.page.getByRole("dialog", { name: "Delete this session?" });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Delete session" }).click();
    await this.page.waitForURL((url) => url.pathname === "/");
  }
}
