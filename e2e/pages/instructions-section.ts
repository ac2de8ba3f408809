import { type Locator, type Page, expect } from "@playwright/test";
import { ScopedTeamSection } from "./team-page";

/** The "Instructions" section of the Team page (/team): what the team or one project tells the agent. */
export class TeamInstructionsSection extends ScopedTeamSection {
  readonly input = this.section.getByTestId("instructions-input");

  constructor(page: Page) {
    super(page, { testId: "team-instructions", scopeLabel: "Instructions for", name: "instructions" });
  }

  protected async loaded(): Promise<void> {
    await expect(this.form).toBeVisible();
  }

  /** Writes and saves the instructions of the scope shown ("The whole team" or a project). */
  async write(text: string): Promise<void> {
    await this.input.fill(text);
    await this.saveWith("Save instructions");
  }
}

/** The "Instructions: …" line under an answer, and the list it opens. */
export class InstructionsLine {
  readonly line: Locator;
  readonly summary: Locator;
  readonly list: Locator;
  readonly contents: Locator;

  constructor(readonly answer: Locator) {
    this.line = answer.getByTestId("instructions-line");
    this.summary = this.line.getByTestId("instructions-summary");
    this.list = this.line.getByTestId("instructions-list");
    this.contents = this.line.getByTestId("instructions-contents");
  }

  async open(): Promise<void> {
    await this.summary.click();
    await expect(this.list).toBeVisible();
  }

  /** Opens the text of the entry labelled `label` (e.g. "team"). */
  async read(label: string): Promise<Locator> {
    const entry = this.list.getByRole("listitem").filter({ hasText: label });
    await entry.getByRole("button", { name: "Open" }).click();
    return entry.getByTestId("instructions-contents");
  }
}
