import type { Locator } from "@playwright/test";
import { PageObject } from "./page-object";

/** The session sidebar beside a session page (a column on desktop, a drawer on a phone). */
export class SessionSidebar extends PageObject {
  /** The desktop column. */
  readonly column = this.page.getByRole("navigation", { name: "Sessions" }).and(this.page.getByTestId("session-sidebar"));
  readonly hide = this.page.getByRole("button", { name: "Hide sessions" });
  readonly show = this.page.getByRole("button", { name: "Show sessions" });
  /** The phone's button and drawer. */
  readonly drawerButton = this.page.getByTestId("sidebar-drawer-button");
  readonly drawer = this.page.getByRole("dialog", { name: "Sessions" });

  /** A session's entry (its children nested inside it) within `within`. */
  item(within: Locator, sessionId: string): Locator {
    return within.locator(`[data-testid="sidebar-session"][data-session-id="${sessionId}"]`);
  }

  /** The entries directly under a project (roots), not the children nested in them. */
  roots(within: Locator): Locator {
    return within.locator('[data-testid="sidebar-project"] > ul > [data-testid="sidebar-session"]');
  }

  /** A session's own link (not its children's). */
  link(within: Locator, sessionId: string): Locator {
    return this.item(within, sessionId).locator(":scope > a");
  }

  badge(within: Locator, sessionId: string): Locator {
    return this.link(within, sessionId).getByTestId("sidebar-badge");
  }
}
