import { type Locator, expect } from "@playwright/test";
import { PageObject } from "./page-object";
import { type PermissionRule, addPermissionRule } from "./rule-form";

/** The pending permission questions of the open session, and the session settings dialog. */
export class PermissionPrompt extends PageObject {
  readonly requests = this.page.getByTestId("permission-request");
  readonly replyErrors = this.page.getByTestId("permission-reply-error");
  /** The oldest pending question: the one single keys answer. */
  readonly oldest = this.page.locator('[data-testid="permission-request"][data-oldest="true"]');
  readonly announcement = this.page.getByTestId("permission-announcement");

  /**
   * For each answer button of the card: whether it is what the page shows at its centre
   * (not hidden under the sticky composer or header, and inside the viewport).
   */
  async buttonsOnTop(card: Locator): Promise<Record<string, boolean>> {
    return card.locator("button[data-answer]").evaluateAll((buttons) =>
      Object.fromEntries(
        buttons.map((button) => {
          const rect = button.getBoundingClientRect();
          const x = rect.left + rect.width / 2;
          const y = rect.top + rect.height / 2;
          const inside = y >= 0 && y <= window.innerHeight && x >= 0 && x <= window.innerWidth;
          const hit = inside ? document.elementFromPoint(x, y) : null;
          return [button.getAttribute("data-answer") ?? "", hit !== null && button.contains(hit)];
        }),
      ),
    );
  }

  /** The card asking for this command / path. */
  request(pattern: string): Locator {
    return this.requests.filter({ has: this.page.getByTestId("permission-patterns").getByText(pattern, { exact: true }) });
  }

  async allowOnce(pattern: string): Promise<void> {
    await this.request(pattern).getByRole("button", { name: "Allow once" }).click();
    await expect(this.request(pattern)).toHaveCount(0);
  }

  async allowAlways(pattern: string): Promise<void> {
    await this.request(pattern).getByRole("button", { name: "Always allow" }).click();
    await expect(this.request(pattern)).toHaveCount(0);
  }

  async reject(pattern: string, feedback?: string): Promise<void> {
    const card = this.request(pattern);
    if (feedback) {
      await card.getByRole("button", { name: "Reject with feedback…" }).click();
      await card.getByRole("textbox", { name: /Tell the agent why/ }).fill(feedback);
    }
    await card.getByRole("button", { name: feedback ? "Reject with feedback" : "Reject", exact: true }).click();
    await expect(card).toHaveCount(0);
  }
}

/** The "Settings" dialog of a session: its own permission rules. */
export class SessionSettingsDialog extends PageObject {
  readonly dialog = this.page.getByRole("dialog", { name: "Session settings" });
  readonly rules = this.dialog.getByTestId("permission-rule");

  async open(): Promise<void> {
    await this.page.getByRole("button", { name: "Settings" }).click();
    await expect(this.dialog).toBeVisible();
  }

  addRule(rule: PermissionRule): Promise<void> {
    return addPermissionRule(this.dialog, this.rules, rule);
  }

  async save(): Promise<void> {
    await this.dialog.getByRole("button", { name: "Save rules" }).click();
    await expect(this.dialog).toBeHidden();
  }
}
