import { type Locator, type Page, expect } from "@playwright/test";
import { PageObject } from "./page-object";

export type ThemeName = "Light" | "Dark" | "System";

/** What every page has around its content: the header (or its phone menu), the theme switch, skip links, live regions, the shortcut help. */
export class AppShell extends PageObject {
  readonly menuButton = this.page.getByRole("button", { name: "Menu", exact: true });
  readonly drawer = this.page.getByRole("dialog", { name: "Menu" });
  readonly announcer = this.page.getByTestId("announcer-polite");
  readonly shortcutHelp = this.page.getByRole("dialog", { name: "Keyboard shortcuts" });
  readonly main = this.page.locator("main#main");

  /** Opens the phone menu (the drawer). */
  async openMenu(): Promise<Locator> {
    await this.menuButton.click();
    await expect(this.drawer).toBeVisible();
    return this.drawer;
  }

  /** The theme switch's radio for `theme` (in the drawer when it is open). */
  themeOption(theme: ThemeName, scope: Locator | Page = this.page): Locator {
    return scope.getByRole("group", { name: "Theme" }).getByRole("radio", { name: theme });
  }

  async chooseTheme(theme: ThemeName, scope: Locator | Page = this.page): Promise<void> {
    // The radio itself is visually hidden: its label is what one clicks.
    await this.themeOption(theme, scope).check({ force: true });
    await expect(this.page.locator("html")).toHaveAttribute("data-theme", theme.toLowerCase());
  }

  /** The page scrolls sideways when its content is wider than the screen. */
  horizontalOverflow(): Promise<{ scrollWidth: number; clientWidth: number }> {
    return this.page.evaluate(() => {
      const root = document.scrollingElement ?? document.documentElement;
      return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
    });
  }

  async expectNoHorizontalOverflow(where: string): Promise<void> {
    const { scrollWidth, clientWidth } = await this.horizontalOverflow();
    expect(scrollWidth, `${where}: the page is ${scrollWidth} px wide on a ${clientWidth} px screen`).toBeLessThanOrEqual(clientWidth);
  }

  /** The relative luminance (0 black … 1 white) of an element's computed colour or background. */
  luminance(locator: Locator, property: "color" | "background-color"): Promise<number> {
    return locator.evaluate((element, prop) => {
      // Canvas turns any CSS colour (oklch, color-mix…) into sRGB bytes.
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 1;
      const context = canvas.getContext("2d");
      if (!context) throw new Error("no 2d canvas");
      context.fillStyle = getComputedStyle(element).getPropertyValue(prop);
      context.fillRect(0, 0, 1, 1);
      const [r = 0, g = 0, b = 0] = context.getImageData(0, 0, 1, 1).data;
      const linear = (c: number) => {
        const s = c / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    }, property);
  }
}

/** WCAG contrast ratio of two relative luminances. */
export function contrastRatio(a: number, b: number): number {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}
