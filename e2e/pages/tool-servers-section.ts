import type { Locator } from "@playwright/test";
import { PageObject } from "./page-object";

/** The "Tool servers" section of the Team page (/team): the team's MCP servers and the form that adds one. */
export class ToolServersSection extends PageObject {
  readonly section = this.page.getByTestId("tool-servers");
  readonly form = this.section.getByTestId("tool-server-form");

  /** A listed server, by name. */
  row(name: string): Locator {
    return this.section.locator(`[data-testid="tool-server"][data-name="${name}"]`);
  }

  /** Fills the form's name, URL and header fields for a remote server; the caller fills what else it needs, then adds it. */
  async fillRemote(server: { name: string; url: string; header: string; prefix?: string }): Promise<void> {
    await this.form.getByLabel("Server name").fill(server.name);
    await this.form.getByLabel("Server URL").fill(server.url);
    await this.form.getByLabel("Header name").fill(server.header);
    if (server.prefix !== undefined) await this.form.getByLabel("Value prefix").fill(server.prefix);
  }

  async add(): Promise<void> {
    await this.form.getByRole("button", { name: "Add server" }).click();
  }
}
