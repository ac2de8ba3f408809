import type { Locator, Page } from "@playwright/test";

/**
 * What a page object starts from: the page it drives. A subclass declares each locator once,
 * as a field built from `this.page` (fields are set after this constructor has run).
 */
export abstract class PageObject {
  constructor(readonly page: Page) {}
}

/** The parts of a transcript on any page (a session, a share link): by type, and tool calls by status. */
export abstract class TranscriptPage extends PageObject {
  readonly messages = this.page.getByTestId("message");

  part(type: string): Locator {
    return this.page.locator(`[data-part-type="${type}"]`);
  }

  tool(status: "pending" | "running" | "completed" | "error"): Locator {
    return this.page.locator(`[data-part-type="tool"][data-tool-status="${status}"]`);
  }
}
