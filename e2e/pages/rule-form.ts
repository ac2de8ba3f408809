import { type Locator, expect } from "@playwright/test";

export type PermissionRule = { permission: string; pattern: string; action: "allow" | "ask" | "deny" };

/**
 * Adds a row to a permission-rules form (the team's policy, a session's settings): "Add
 * rule" in `form`, waits for the new row among `rules`, then fills the row.
 */
export async function addPermissionRule(form: Locator, rules: Locator, rule: PermissionRule): Promise<void> {
  const n = (await rules.count()) + 1;
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(rules).toHaveCount(n);
  await form.getByRole("combobox", { name: `Permission of rule ${n}` }).fill(rule.permission);
  await form.getByRole("textbox", { name: `Pattern of rule ${n}` }).fill(rule.pattern);
  await form.getByRole("combobox", { name: `Action of rule ${n}` }).selectOption(rule.action);
}
