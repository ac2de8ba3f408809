/**
 * The colour theme: "light", "dark" or "system" (follow the device). The choice is kept in
 * a cookie so that the server renders `<html data-theme>` with it: the first paint already
 * has the right colours, with no script and no flash. "system" is resolved by CSS
 * (`prefers-color-scheme`, app/globals.css), so it needs no script either.
 */

export const THEMES = ["light", "dark", "system"] as const;
export type Theme = (typeof THEMES)[number];

export const THEME_COOKIE = "parley-theme";
/** A year: the choice stays until changed. */
const THEME_COOKIE_MAX_AGE = 60 * 60 * 24 * 365;

export const DEFAULT_THEME: Theme = "system";

/** The theme stored in the cookie; anything else (no cookie, an old or forged value) is the default. */
export function parseTheme(value: string | undefined): Theme {
  return THEMES.find((theme) => theme === value) ?? DEFAULT_THEME;
}

/** The Set-Cookie value that remembers `theme` for the whole site. */
export function themeCookie(theme: Theme): string {
  return `${THEME_COOKIE}=${theme}; Path=/; Max-Age=${THEME_COOKIE_MAX_AGE}; SameSite=Lax`;
}

export const THEME_LABELS: Record<Theme, string> = { light: "Light", dark: "Dark", system: "System" };
