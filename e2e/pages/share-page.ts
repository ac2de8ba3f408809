import { type Locator, type Page, expect } from "@playwright/test";

/** A shared session at /share/<id>, as an anonymous viewer sees it. */
export class SharePage {
  readonly view: Locator;
  readonly title: Locator;
  readonly messages: Locator;
  readonly revoked: Locator;
  readonly notFound: Locator;
  readonly children: Locator;
  readonly loadOlder: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId("share-view");
    this.title = page.getByTestId("share-title");
    this.messages = page.getByTestId("message");
    this.revoked = page.getByTestId("share-revoked");
    this.notFound = page.getByTestId("share-not-found");
    this.children = page.getByTestId("share-children");
    this.loadOlder = page.getByRole("button", { name: "Load older messages" });
  }

  /** Opens the link and waits until its live stream is connected. */
  async goto(url: string): Promise<void> {
    await this.page.goto(url);
    await expect(this.title).toBeVisible();
    await expect(this.page.getByTestId("share-connection")).toHaveAttribute("data-connected", "true");
  }

  part(type: string): Locator {
    return this.page.locator(`[data-part-type="${type}"]`);
  }

  tool(status: "pending" | "running" | "completed" | "error"): Locator {
    return this.page.locator(`[data-part-type="tool"][data-tool-status="${status}"]`);
  }
}

/** The share controls in the header of a session page. */
export class ShareControls {
  readonly root: Locator;
  readonly url: Locator;
  readonly hint: Locator;

  constructor(readonly page: Page) {
    this.root = page.getByTestId("share-controls");
    this.url = this.root.getByRole("textbox", { name: "Share link" });
    this.hint = this.root.getByTestId("share-hint");
  }

  /** The controls are in the session header's details: opened unless open. */
  async reveal(): Promise<void> {
    const toggle = this.page.getByTestId("session-details-toggle");
    if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
    await expect(this.root).toBeVisible();
  }

  /** Shares the session and returns the link's path (/share/<id>). */
  async share(): Promise<string> {
    await this.reveal();
    await this.root.getByRole("button", { name: "Share", exact: true }).click();
    await expect(this.url).toHaveValue(/\/share\/[A-Za-z0-9_-]+$/);
    return new URL(await this.url.inputValue()).pathname;
  }

  async unshare(): Promise<void> {
    await this.reveal();
    await this.root.getByRole("button", { name: "Unshare" }).click();
    await expect(this.root.getByRole("button", { name: "Share", exact: true })).toBeVisible();
  }
}
