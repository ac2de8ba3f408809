/**
 * The app's keyboard shortcuts, as pure rules over a key event and where it happened, so the
 * listeners (shortcut-help.tsx, the session page's Escape) stay small and the rules testable.
 * A handler that uses a key itself (a completion list closing on Escape, say) calls
 * `event.preventDefault()`: every rule here leaves a prevented event alone.
 */

/** The id of the page's message box (the chat composer), which "/" and the skip link focus. */
export const MESSAGE_BOX_ID = "message-box";

export interface Shortcut {
  keys: string[];
  description: string;
}

/** What the "?" help lists: every shortcut of the app. */
export const SHORTCUTS: Shortcut[] = [
  { keys: ["/"], description: "Focus the message box" },
  { keys: ["Ctrl/⌘", "K"], description: "Search sessions (the search box of the page, else the session list's)" },
  { keys: ["Ctrl/⌘", "Shift", "O"], description: "Start a new session" },
  { keys: ["Esc"], description: "Stop the agent's reply while it works — while a question waits, go to the question instead" },
  { keys: ["Ctrl/⌘", "."], description: "Stop the agent's reply, also while a question waits" },
  { keys: ["Y"], description: "Allow the waiting question once (from the question, the page or an empty message box)" },
  { keys: ["Enter"], description: "Allow the waiting question once, as Y (on a focused button: that button)" },
  { keys: ["A"], description: "Always allow the waiting question, when offered" },
  { keys: ["N"], description: "Reject the waiting question" },
  { keys: ["Esc", "Esc"], description: "On the waiting question: reject it" },
  { keys: ["Enter"], description: "Send the message" },
  { keys: ["Shift", "Enter"], description: "New line in the message" },
  { keys: ["/"], description: "In an empty message box: the command menu (↑ ↓ move, Tab completes, Enter runs, Esc closes)" },
  { keys: ["Tab"], description: "In an empty message box: the next agent (Shift+Tab the previous)" },
  { keys: ["!"], description: "At the start of a message: run the rest as a shell command in the sandbox" },
  { keys: ["?"], description: "Show these shortcuts" },
];

/** The parts of a KeyboardEvent the rules read. */
export interface KeyInput {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey?: boolean;
  defaultPrevented: boolean;
  isComposing?: boolean;
}

/** The parts of the focused element the rules read (an Element in the browser). */
export interface FocusTarget {
  tagName: string;
  isContentEditable?: boolean;
  type?: string;
  closest?: (selector: string) => unknown;
}

/** Input types whose keys are not text (a "/" pressed on a checkbox types nothing). */
const NON_TEXT_INPUTS = new Set(["checkbox", "radio", "button", "submit", "reset", "range", "color", "file", "image"]);

/** Whether keys pressed here type text (or pick an option), so single-key shortcuts must not fire. */
export function isTypingTarget(target: FocusTarget | null): boolean {
  if (!target) return false;
  const tag = target.tagName.toUpperCase();
  if (tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable === true) return true;
  return tag === "INPUT" && !NON_TEXT_INPUTS.has((target.type ?? "text").toLowerCase());
}

/** Dialogs, menus and lists own their Escape (closing themselves). */
const OVERLAY = 'dialog, [role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"]';

function inOverlay(target: FocusTarget | null): boolean {
  return Boolean(target?.closest?.(OVERLAY));
}

function plain(event: KeyInput): boolean {
  return !event.ctrlKey && !event.metaKey && !event.altKey && !event.defaultPrevented && event.isComposing !== true;
}

export type GlobalShortcut = "focus-message-box" | "show-help" | "search" | "new-session";

/** Ctrl (⌘ on a Mac) with `key`, and Shift when `shift`: no other modifier, nothing handled. */
function command(event: KeyInput, key: string, shift: boolean): boolean {
  if (event.defaultPrevented || event.isComposing === true || event.altKey) return false;
  return (event.ctrlKey || event.metaKey) && Boolean(event.shiftKey) === shift && event.key.toLowerCase() === key;
}

/**
 * "/" focuses the message box and "?" opens the help, unless typed into a field;
 * Ctrl/⌘+K searches and Ctrl/⌘+Shift+O starts a new session from anywhere (a text field
 * included) but a dialog or menu.
 */
export function globalShortcut(event: KeyInput, target: FocusTarget | null): GlobalShortcut | undefined {
  if (inOverlay(target)) return undefined;
  if (command(event, "k", false)) return "search";
  if (command(event, "o", true)) return "new-session";
  if (!plain(event) || isTypingTarget(target)) return undefined;
  if (event.key === "/") return "focus-message-box";
  if (event.key === "?") return "show-help";
  return undefined;
}

/**
 * Escape stops a running reply from anywhere on the session page (the message box too), but
 * not from a dialog or menu, and never while a permission question waits (`asking`: Escape
 * then goes to the question, components/permission/keys.ts).
 */
export function stopsReply(event: KeyInput, target: FocusTarget | null, running: boolean, asking = false): boolean {
  return running && !asking && event.key === "Escape" && plain(event) && !inOverlay(target);
}

/** Ctrl/⌘+. stops a running reply from anywhere, a waiting question or not: the dedicated stop key. */
export function abortShortcut(event: KeyInput, running: boolean): boolean {
  return running && command(event, ".", false);
}
