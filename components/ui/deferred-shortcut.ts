/**
 * A shortcut pressed on a page that cannot do it (Ctrl/⌘+K where there is no search box,
 * Ctrl/⌘+Shift+O where there is no "New session"): the app goes to the session list and
 * the shortcut is done there, once, by the component that can (it takes it on mount). Kept
 * in sessionStorage for the one navigation; never older than a few seconds.
 */

export type DeferredShortcut = "search" | "new-session";

const KEY = "parley.deferred-shortcut";
const MAX_AGE_MS = 10_000;

export function deferShortcut(name: DeferredShortcut): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ name, at: Date.now() }));
  } catch {
    // Storage refused (private mode quota): the shortcut only opens the list.
  }
}

/** Whether `name` was deferred to this page: true once, then forgotten. */
export function takeDeferredShortcut(name: DeferredShortcut): boolean {
  let parsed: unknown;
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return false;
    parsed = JSON.parse(raw);
  } catch {
    return false;
  }
  if (typeof parsed !== "object" || parsed === null || !("name" in parsed) || !("at" in parsed) || parsed.name !== name) return false;
  sessionStorage.removeItem(KEY);
  return typeof parsed.at === "number" && Date.now() - parsed.at < MAX_AGE_MS;
}
