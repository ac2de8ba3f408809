"use client";

import { useId, useSyncExternalStore } from "react";
import { THEMES, THEME_LABELS, type Theme, parseTheme, themeCookie } from "./theme";

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The theme on <html data-theme> (set by the server from the cookie, then by this switch). */
function currentTheme(): Theme {
  return parseTheme(document.documentElement.dataset.theme);
}

function chooseTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  document.cookie = themeCookie(theme);
  for (const listener of listeners) listener();
}

const ICONS: Record<Theme, string> = {
  light:
    "M10 2a.75.75 0 0 1 .75.75v1.5a.75.75 0 0 1-1.5 0v-1.5A.75.75 0 0 1 10 2zm0 13a.75.75 0 0 1 .75.75v1.5a.75.75 0 0 1-1.5 0v-1.5A.75.75 0 0 1 10 15zm0-8a3 3 0 1 0 0 6 3 3 0 0 0 0-6zm5.66-2.66a.75.75 0 0 1 0 1.06l-1.06 1.06a.75.75 0 1 1-1.06-1.06l1.06-1.06a.75.75 0 0 1 1.06 0zM6.46 13.54a.75.75 0 0 1 0 1.06l-1.06 1.06a.75.75 0 0 1-1.06-1.06l1.06-1.06a.75.75 0 0 1 1.06 0zM18 10a.75.75 0 0 1-.75.75h-1.5a.75.75 0 0 1 0-1.5h1.5A.75.75 0 0 1 18 10zM5 10a.75.75 0 0 1-.75.75h-1.5a.75.75 0 0 1 0-1.5h1.5A.75.75 0 0 1 5 10zm10.66 5.66a.75.75 0 0 1-1.06 0l-1.06-1.06a.75.75 0 0 1 1.06-1.06l1.06 1.06a.75.75 0 0 1 0 1.06zM6.46 6.46a.75.75 0 0 1-1.06 0L4.34 5.4A.75.75 0 0 1 5.4 4.34l1.06 1.06a.75.75 0 0 1 0 1.06z",
  dark: "M7.46 2.3a.75.75 0 0 1 .13.83 6 6 0 0 0 7.28 8.28.75.75 0 0 1 .96.96A7.5 7.5 0 1 1 6.63 2.17a.75.75 0 0 1 .83.13z",
  system:
    "M2 4.75A1.75 1.75 0 0 1 3.75 3h12.5A1.75 1.75 0 0 1 18 4.75v7.5A1.75 1.75 0 0 1 16.25 14h-4.5v1.5h1.5a.75.75 0 0 1 0 1.5h-6.5a.75.75 0 0 1 0-1.5h1.5V14h-4.5A1.75 1.75 0 0 1 2 12.25v-7.5zm1.75-.25a.25.25 0 0 0-.25.25v7.5c0 .14.11.25.25.25h12.5a.25.25 0 0 0 .25-.25v-7.5a.25.25 0 0 0-.25-.25H3.75z",
};

/**
 * Light / Dark / System as three radio buttons (arrow keys move between them). `initial` is
 * the theme the server rendered, so the switch shows it before hydration too.
 */
export function ThemeSwitch({ initial, showLabels = false }: { initial: Theme; showLabels?: boolean }) {
  const theme = useSyncExternalStore(subscribe, currentTheme, () => initial);
  const name = useId();
  return (
    <fieldset className="flex items-center" data-testid="theme-switch">
      <legend className="sr-only">Theme</legend>
      <div className="inline-flex rounded-lg bg-zinc-100 p-0.5 ring-1 ring-zinc-200 ring-inset">
        {THEMES.map((option) => (
          <label
            key={option}
            title={THEME_LABELS[option]}
            className="flex cursor-pointer items-center gap-1.5 rounded-md px-1.5 py-1 text-xs font-medium text-zinc-600 hover:text-zinc-900 has-checked:bg-white has-checked:text-zinc-900 has-checked:shadow-sm has-checked:ring-1 has-checked:ring-zinc-300 has-focus-visible:outline-2 has-focus-visible:outline-indigo-600"
          >
            <input type="radio" name={name} value={option} checked={theme === option} onChange={() => chooseTheme(option)} className="sr-only" />
            <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className="size-4">
              <path fillRule="evenodd" clipRule="evenodd" d={ICONS[option]} />
            </svg>
            <span className={showLabels ? "" : "sr-only"}>{THEME_LABELS[option]}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
