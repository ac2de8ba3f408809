import { type Locator, expect } from "@playwright/test";
import { PageObject } from "./page-object";

/** The team dashboard at /dashboard. */
export class DashboardPage extends PageObject {
  readonly heading = this.page.getByRole("heading", { name: "Dashboard", level: 1 });
  readonly search = this.page.getByRole("searchbox", { name: "Search sessions" });
  readonly rows = this.page.getByTestId("dashboard-row");
  readonly totals = this.page.getByTestId("dashboard-totals");

  async goto(query = ""): Promise<void> {
    await this.page.goto(`/dashboard${query}`);
    await expect(this.heading).toBeVisible();
  }

  /** The rows' session titles, top to bottom, each indented by two spaces per tree level. */
  async outline(): Promise<string[]> {
    return this.rows.evaluateAll((rows) =>
      rows.map((row) => `${"  ".repeat(Number(row.getAttribute("data-depth")))}${row.querySelector("td a")?.textContent ?? ""}`),
    );
  }

  /** Waits until the rows read `expected` (see outline). */
  async expectOutline(expected: string[]): Promise<void> {
    await expect.poll(() => this.outline()).toEqual(expected);
  }

  row(title: string): Locator {
    return this.rows.filter({ has: this.page.getByRole("link", { name: title, exact: true }) });
  }

  select(label: "Project" | "Author" | "Status" | "Archived" | "Sort by"): Locator {
    return this.page.getByRole("combobox", { name: label, exact: true });
  }
}
