import { type Locator, expect } from "@playwright/test";

/**
 * A tool card (`[data-part-type="tool"]`): collapsed to its one-line summary until opened.
 * Its body stays in the page while collapsed, hidden.
 */
export class ToolCard {
  readonly details: Locator;
  readonly summary: Locator;

  constructor(readonly root: Locator) {
    this.details = root.locator("details").first();
    this.summary = this.details.locator("summary").first();
  }

  async isOpen(): Promise<boolean> {
    return this.details.evaluate((element) => (element as HTMLDetailsElement).open);
  }

  /** Opens the card with a click on its summary (no-op when it is open). */
  async open(): Promise<void> {
    if (!(await this.isOpen())) await this.summary.click();
    await expect(this.details).toHaveAttribute("open", "");
  }

  async expectCollapsed(): Promise<void> {
    await expect(this.summary).toBeVisible();
    await expect(this.details).not.toHaveAttribute("open");
  }
}
