import { MESSAGE_BOX_ID } from "@/components/ui/keyboard";

/**
 * Single-key answers to the oldest pending permission question: Y or Enter allows it
 * once, A always allows it (when "always" is offered), N rejects it. Only when the key is
 * not meant for something else: no modifier, not typed into a text field — except the
 * message box while it is empty, where the letter would only start a message — and Enter
 * not pressed on a control that Enter activates itself. Escape while a question waits
 * goes to the question, and a second Escape there rejects it: it never stops the turn
 * (questionEscape). Pure, so it is unit-tested.
 */

export type KeyAnswer = "once" | "always" | "reject";

/** The keys of each answer, as shown on the buttons and read by `aria-keyshortcuts`. */
export const ANSWER_KEYS: Record<KeyAnswer, { label: string; shortcuts: string }> = {
  once: { label: "Y", shortcuts: "Y Enter" },
  always: { label: "A", shortcuts: "A" },
  reject: { label: "N", shortcuts: "N" },
};

/** What a key press needs to be read: the event's fields and where focus is. */
export interface KeyPress {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  repeat: boolean;
  isComposing: boolean;
  defaultPrevented: boolean;
  shiftKey?: boolean;
  /** The focused element (the event's target). */
  target: FocusTarget | null;
}

/** The parts of an element that decide whether a key typed there is the element's own. */
export interface FocusTarget {
  tagName: string;
  isContentEditable: boolean;
  /** The `type` of an <input>, the `role` attribute of anything. */
  type?: string | undefined;
  role?: string | null | undefined;
  /** Set when this is the chat's message box: whether nothing is typed in it, whether its completion list is open. */
  messageBox?: { empty: boolean; listOpen: boolean } | undefined;
  /** Whether it is the oldest question's card or inside it. */
  inQuestion?: boolean | undefined;
  /** Whether it is inside a dialog, a menu or a list, which own their Escape. */
  inOverlay?: boolean | undefined;
}

const TEXT_INPUTS = new Set(["text", "search", "email", "url", "tel", "password", "number", "date", "datetime-local", "month", "time", "week"]);
const ENTER_CONTROLS = new Set(["A", "BUTTON", "SUMMARY", "SELECT", "INPUT", "TEXTAREA"]);
const ENTER_ROLES = new Set(["button", "link", "menuitem", "option", "tab", "checkbox", "radio", "switch", "combobox", "textbox"]);

/** Whether keys typed with focus here are text (a text field, a text area, a select, anything editable). */
export function isTextField(target: FocusTarget | null): boolean {
  if (!target) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName.toUpperCase();
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") return TEXT_INPUTS.has((target.type ?? "text").toLowerCase());
  return target.role === "textbox" || target.role === "combobox";
}

/** The answer a key press gives, or undefined when the key is not one (or is another control's). */
export function answerForKey(press: KeyPress, options: { always: boolean }): KeyAnswer | undefined {
  if (press.defaultPrevented || press.repeat || press.isComposing) return undefined;
  if (press.altKey || press.ctrlKey || press.metaKey) return undefined;
  const emptyBox = press.target?.messageBox?.empty === true && !press.target.messageBox.listOpen;
  if (!emptyBox && isTextField(press.target)) return undefined;
  switch (press.key) {
    case "Enter": {
      const target = press.target;
      if (press.shiftKey) return undefined;
      if (emptyBox) return "once";
      if (target && (ENTER_CONTROLS.has(target.tagName.toUpperCase()) || (target.role && ENTER_ROLES.has(target.role)))) return undefined;
      return "once";
    }
    case "y":
    case "Y":
      return "once";
    case "a":
    case "A":
      return options.always ? "always" : undefined;
    case "n":
    case "N":
      return "reject";
    default:
      return undefined;
  }
}

/**
 * What Escape does while a question waits: from the question (its card or a control in it)
 * it rejects it; from anywhere else — the message box above all — it moves focus to the
 * question. Never anything else: the turn is stopped by the Stop button or Ctrl/⌘+. only.
 * Undefined where Escape is someone else's: a dialog, menu or list, an open completion list
 * of the message box, or a handled event.
 */
export function questionEscape(press: KeyPress): "reject" | "focus-question" | undefined {
  if (press.key !== "Escape" || press.defaultPrevented || press.repeat || press.isComposing) return undefined;
  if (press.altKey || press.ctrlKey || press.metaKey || press.shiftKey) return undefined;
  const target = press.target;
  if (target?.inQuestion) return "reject";
  if (target?.inOverlay || target?.messageBox?.listOpen) return undefined;
  // Another text field (editing a message, say) keeps its own Escape.
  if (target && !target.messageBox && isTextField(target)) return undefined;
  return "focus-question";
}

const OVERLAY = 'dialog, [role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"]';

/** A DOM key event as a KeyPress; `question`: the oldest question's card, if it is shown. */
export function keyPress(event: KeyboardEvent, question?: Element | null): KeyPress {
  const element = event.target instanceof HTMLElement ? event.target : null;
  const box = element instanceof HTMLTextAreaElement && element.id === MESSAGE_BOX_ID ? element : null;
  return {
    key: event.key,
    altKey: event.altKey,
    ctrlKey: event.ctrlKey,
    metaKey: event.metaKey,
    shiftKey: event.shiftKey,
    repeat: event.repeat,
    isComposing: event.isComposing,
    defaultPrevented: event.defaultPrevented,
    target: element
      ? {
          tagName: element.tagName,
          isContentEditable: element.isContentEditable,
          type: element instanceof HTMLInputElement ? element.type : undefined,
          role: element.getAttribute("role"),
          messageBox: box ? { empty: box.value === "", listOpen: box.hasAttribute("aria-controls") } : undefined,
          inQuestion: question ? question.contains(element) : false,
          inOverlay: element.closest(OVERLAY) !== null,
        }
      : null,
  };
}

/**
 * Whether "Always allow" is offered for a question: it must name patterns to remember,
 * and a question the server config or the team's or project's policy asks (`policy`) is
 * for owners and admins only (the server refuses a member's "always" to it as well).
 */
export function offersAlways(request: { always: readonly string[]; policy?: boolean | undefined }, mayBypassPolicy: boolean): boolean {
  return request.always.length > 0 && (request.policy !== true || mayBypassPolicy);
}
