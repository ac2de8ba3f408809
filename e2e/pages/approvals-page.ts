import { type Locator, expect } from "@playwright/test";
import { PageObject } from "./page-object";

/** The team's stored "Always allow" approvals at /team/approvals. */
export class ApprovalsPage extends PageObject {
  readonly heading = this.page.getByRole("heading", { name: "Approvals", level: 1 });
  readonly rows = this.page.getByTestId("approval");
  readonly empty = this.page.getByTestId("approvals-empty");
  readonly projectFilter = this.page.getByRole("combobox", { name: "Project", exact: true });
  readonly confirm = this.page.getByRole("dialog", { name: "Revoke this approval?" });

  async goto(): Promise<void> {
    await this.page.goto("/team/approvals");
    await expect(this.heading).toBeVisible();
  }

  /** The approvals of `permission` for exactly this pattern. */
  row(permission: string, pattern: string): Locator {
    return this.page.locator(`[data-testid="approval"][data-permission="${permission}"][data-pattern="${pattern}"]`);
  }

  async filterByProject(label: string): Promise<void> {
    await this.projectFilter.selectOption({ label });
  }

  /** Revokes through the confirmation dialog and waits for the row to go. */
  async revoke(row: Locator): Promise<void> {
    await row.getByRole("button", { name: /^Revoke/ }).click();
    await expect(this.confirm).toBeVisible();
    await this.confirm.getByRole("button", { name: "Revoke", exact: true }).click();
    await expect(this.confirm).toBeHidden();
    await expect(row).toHaveCount(0);
  }
}
