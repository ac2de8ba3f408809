import type { Locator, Page } from "@playwright/test";

/** The session sidebar beside a session page (a column on desktop, a drawer on a phone). */
export class SessionSidebar {
  /** The desktop column. */
  readonly column: Locator;
  readonly hide: Locator;
  readonly show: Locator;
  /** The phone's button and drawer. */
  readonly drawerButton: Locator;
  readonly drawer: Locator;

  constructor(readonly page: Page) {
    this.column = page.getByRole("navigation", { name: "Sessions" }).and(page.getByTestId("session-sidebar"));
    this.hide = page.getByRole("button", { name: "Hide sessions" });
    this.show = page.getByRole("button", { name: "Show sessions" });
    this.drawerButton = page.getByTestId("sidebar-drawer-button");
    this.drawer = page.getByRole("dialog", { name: "Sessions" });
  }

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
