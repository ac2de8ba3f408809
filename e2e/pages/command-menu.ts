import type { Locator, Page } from "@playwright/test";

/** The composer's `/` menu, its agent picker and the hint of what the text will do (`!` shell, `/` command). */
export class ComposerCommands {
  readonly menu: Locator;
  readonly list: Locator;
  readonly options: Locator;
  readonly agentPicker: Locator;
  readonly mode: Locator;

  constructor(readonly page: Page) {
    this.menu = page.getByTestId("command-menu");
    this.list = page.getByRole("listbox", { name: "Commands" });
    this.options = this.list.getByRole("option");
    this.agentPicker = page.getByRole("combobox", { name: "Agent", exact: true });
    this.mode = page.getByTestId("composer-mode");
  }

  option(name: string): Locator {
    return this.list.locator(`[data-command="${name}"]`);
  }

  /** The highlighted option (aria-selected). */
  get highlighted(): Locator {
    return this.list.locator('[role="option"][aria-selected="true"]');
  }
}
