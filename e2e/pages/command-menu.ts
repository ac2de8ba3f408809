import type { Locator } from "@playwright/test";
import { PageObject } from "./page-object";

/** The composer's `/` menu, its agent picker and the hint of what the text will do (`!` shell, `/` command). */
export class ComposerCommands extends PageObject {
  readonly menu = this.page.getByTestId("command-menu");
  readonly list = this.page.getByRole("listbox", { name: "Commands" });
  readonly options = this.list.getByRole("option");
  readonly agentPicker = this.page.getByRole("combobox", { name: "Agent", exact: true });
  readonly mode = this.page.getByTestId("composer-mode");

  option(name: string): Locator {
    return this.list.locator(`[data-command="${name}"]`);
  }

  /** The highlighted option (aria-selected). */
  get highlighted(): Locator {
    return this.list.locator('[role="option"][aria-selected="true"]');
  }
}
