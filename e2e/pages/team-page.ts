import { type Locator, type Page, expect } from "@playwright/test";
import { PageObject } from "./page-object";
import { type PermissionRule, addPermissionRule } from "./rule-form";

/**
 * A section of the Team page (/team) that edits one thing for the whole team or for one
 * project: its scope picker (labelled `scopeLabel`), its form, the form's status line and
 * the note read-only members see instead — test ids `<name>-form`, `<name>-status` and
 * `<name>-read-only`.
 */
export abstract class ScopedTeamSection extends PageObject {
  readonly section: Locator;
  readonly scope: Locator;
  readonly form: Locator;
  readonly status: Locator;
  readonly readOnlyNote: Locator;

  constructor(page: Page, section: { testId: string; scopeLabel: string; name: string }) {
    super(page);
    this.section = page.getByTestId(section.testId);
    this.scope = this.section.getByRole("combobox", { name: section.scopeLabel, exact: true });
    this.form = this.section.getByTestId(`${section.name}-form`);
    this.status = this.section.getByTestId(`${section.name}-status`);
    this.readOnlyNote = this.section.getByTestId(`${section.name}-read-only`);
  }

  /** Opens the Team page and waits until this section has loaded what it edits. */
  async goto(): Promise<void> {
    await this.page.goto("/team");
    await expect(this.section).toBeVisible();
    await this.loaded();
  }

  /** Waits for what shows the section has loaded. */
  protected abstract loaded(): Promise<void>;

  /** Saves the form with its button `label` and waits for "Saved.". */
  protected async saveWith(label: string): Promise<void> {
    await this.form.getByRole("button", { name: label }).click();
    await expect(this.status).toHaveText("Saved.");
  }
}

/** The "Permission policy" section of the Team page (/team). */
export class PermissionPolicySection extends ScopedTeamSection {
  readonly rules = this.section.getByTestId("permission-rule");

  constructor(page: Page) {
    super(page, { testId: "permission-policy", scopeLabel: "Rules for", name: "policy" });
  }

  protected async loaded(): Promise<void> {
    await expect(this.section.getByRole("status").filter({ hasText: "Loading the rules" })).toHaveCount(0);
  }

  /** Picks "All projects" (the team's rules) or a project by name. */
  async chooseScope(label: string): Promise<void> {
    await this.scope.selectOption({ label });
    await this.loaded();
  }

  addRule(rule: PermissionRule): Promise<void> {
    return addPermissionRule(this.form, this.rules, rule);
  }

  save(): Promise<void> {
    return this.saveWith("Save policy");
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
