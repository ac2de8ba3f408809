import { type Page, expect } from "@playwright/test";
import { TranscriptPage } from "./page-object";

/** Opens a session page's header details (its actions, share link, directory, step usage) unless open. */
export async function openSessionDetails(page: Page): Promise<void> {
  const toggle = page.getByTestId("session-details-toggle");
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  await expect(page.getByTestId("session-details")).toBeVisible();
}

/** One session at /sessions/<id>. */
export class SessionPage extends TranscriptPage {
  readonly title = this.page.getByTestId("session-title");
  readonly actions = this.page.getByRole("toolbar", { name: "Session actions" });

  async goto(sessionId: string): Promise<void> {
    await this.page.goto(`/sessions/${sessionId}`);
    await expect(this.title).toBeVisible();
  }

  get sessionId(): string {
    return new URL(this.page.url()).pathname.split("/").pop() ?? "";
  }

  /** Opens the header's details unless open (see openSessionDetails). */
  openDetails(): Promise<void> {
    return openSessionDetails(this.page);
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
