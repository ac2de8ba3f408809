import { type Locator, type Page, expect } from "@playwright/test";

type Rule = { permission: string; pattern: string; action: "allow" | "ask" | "deny" };

/** The "Permission policy" section of the Team page (/team). */
export class PermissionPolicySection {
  readonly section: Locator;
  readonly scope: Locator;
  readonly rules: Locator;
  readonly form: Locator;
  readonly status: Locator;
  readonly readOnlyNote: Locator;
  readonly saveError: Locator;

  constructor(readonly page: Page) {
    this.section = page.getByTestId("permission-policy");
    this.scope = this.section.getByRole("combobox", { name: "Rules for", exact: true });
    this.rules = this.section.getByTestId("permission-rule");
    this.form = this.section.getByTestId("policy-form");
    this.status = this.section.getByTestId("policy-status");
    this.readOnlyNote = this.section.getByTestId("policy-read-only");
    this.saveError = this.section.getByTestId("policy-save-error");
  }

  async goto(): Promise<void> {
    await this.page.goto("/team");
    await expect(this.section).toBeVisible();
    await expect(this.section.getByRole("status").filter({ hasText: "Loading the rules" })).toHaveCount(0);
  }

  /** Picks "All projects" (the team's rules) or a project by name. */
  async chooseScope(label: string): Promise<void> {
    await this.scope.selectOption({ label });
    await expect(this.section.getByRole("status").filter({ hasText: "Loading the rules" })).toHaveCount(0);
  }

  async addRule(rule: Rule): Promise<void> {
    const n = (await this.rules.count()) + 1;
    await this.form.getByRole("button", { name: "Add rule" }).click();
    await expect(this.rules).toHaveCount(n);
    await this.form.getByRole("combobox", { name: `Permission of rule ${n}` }).fill(rule.permission);
    await this.form.getByRole("textbox", { name: `Pattern of rule ${n}` }).fill(rule.pattern);
    await this.form.getByRole("combobox", { name: `Action of rule ${n}` }).selectOption(rule.action);
  }

  async save(): Promise<void> {
    await this.form.getByRole("button", { name: "Save policy" }).click();
    await expect(this.status).toHaveText("Saved.");
  }

  /** The rule shown at `index` (0-based) in the read-only view. */
  rule(index: number): Locator {
    return this.rules.nth(index);
  }
}

/** The Team page's "Secrets" section and its "Add from repository" form. */
export class ProjectSourcesSection {
  constructor(readonly page: Page) {}

  /** Saves a git-token secret named `name` and waits until it is listed. */
  async saveGitToken(name: string, value: string): Promise<void> {
    const secrets = this.page.getByTestId("team-secrets");
    await secrets.getByLabel("Secret name").fill(name);
    await secrets.getByLabel("Kind").selectOption({ label: "Git token" });
    await secrets.getByTestId("secret-value").fill(value);
    await secrets.getByRole("button", { name: "Save" }).click();
    await expect(secrets.locator(`[data-testid="secret"][data-name="${name}"]`)).toBeVisible();
  }

  /** Fills the "Add from repository" form (the credential picked by the secret's name); the caller clicks Clone. */
  async fillClone(input: { url: string; secret: string; user: string; folder: string; pullRequestUrl?: string }): Promise<Locator> {
    await this.page.getByRole("button", { name: "Add from repository" }).click();
    const form = this.page.getByTestId("project-clone-form");
    await form.getByLabel("Repository URL").fill(input.url);
    await form.getByLabel("Credential").selectOption({ label: `${input.secret} (git-token)` });
    await form.getByLabel("User name").fill(input.user);
    await form.getByLabel("Folder").fill(input.folder);
    if (input.pullRequestUrl) await form.getByLabel("Pull request link").fill(input.pullRequestUrl);
    return form;
  }
}
