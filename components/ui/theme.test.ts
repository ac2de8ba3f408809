import { describe, expect, it } from "vitest";
import { DEFAULT_THEME, THEME_COOKIE, parseTheme, themeCookie } from "./theme";

describe("theme cookie", () => {
  it("reads the three themes and falls back to system for anything else", () => {
    expect(parseTheme("light")).toBe("light");
    expect(parseTheme("dark")).toBe("dark");
    expect(parseTheme("system")).toBe("system");
    expect(DEFAULT_THEME).toBe("system");
    expect(parseTheme(undefined)).toBe("system");
    expect(parseTheme("")).toBe("system");
    expect(parseTheme("Dark")).toBe("system");
    expect(parseTheme("dark; Path=/evil")).toBe("system");
  });

  it("remembers the choice site-wide for a year", () => {
    expect(themeCookie("dark")).toBe(`${THEME_COOKIE}=dark; Path=/; Max-Age=31536000; SameSite=Lax`);
  });
});
