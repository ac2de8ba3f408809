import { expect } from "@playwright/test";
import { PageObject, TranscriptPage } from "./page-object";
import { openSessionDetails } from "./session-page";

/** A shared session at /share/<id>, as an anonymous viewer sees it. */
export class SharePage extends TranscriptPage {
  readonly title = this.page.getByTestId("share-title");
  readonly revoked = this.page.getByTestId("share-revoked");
  readonly notFound = this.page.getByTestId("share-not-found");
  readonly children = this.page.getByTestId("share-children");
  readonly loadOlder = this.page.getByRole("button", { name: "Load older messages" });

  /** Opens the link and waits until its live stream is connected. */
  async goto(url: string): Promise<void> {
    await this.page.goto(url);
    await expect(this.title).toBeVisible();
    await expect(this.page.getByTestId("share-connection")).toHaveAttribute("data-connected", "true");
  }
}

/** The share controls in the header of a session page. */
export class ShareControls extends PageObject {
  readonly root = this.page.getByTestId("share-controls");
  readonly url = this.root.getByRole("textbox", { name: "Share link" });
  readonly hint = this.root.getByTestId("share-hint");

  /** The controls are in the session header's details: opened unless open. */
  async reveal(): Promise<void> {
    await openSessionDetails(this.page);
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
