import { type Locator, type Page, expect } from "@playwright/test";

/** The team dashboard at /dashboard. */
export class DashboardPage {
  readonly heading: Locator;
  readonly search: Locator;
  readonly rows: Locator;
  readonly totals: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole("heading", { name: "Dashboard", level: 1 });
    this.search = page.getByRole("searchbox", { name: "Search sessions" });
    this.rows = page.getByTestId("dashboard-row");
    this.totals = page.getByTestId("dashboard-totals");
  }

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
