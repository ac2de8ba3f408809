/**
 * Single-key answers to the oldest pending permission question: Y or Enter allows it
 * once, A always allows it (when "always" is offered), N rejects it. Only when the key is
 * not meant for something else: no modifier, not typed into a text field, and Enter not
 * pressed on a control that Enter activates itself. Pure, so it is unit-tested.
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
  if (isTextField(press.target)) return undefined;
  switch (press.key) {
    case "Enter": {
      const target = press.target;
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

/** A DOM key event as a KeyPress. */
export function keyPress(event: KeyboardEvent): KeyPress {
  const element = event.target instanceof HTMLElement ? event.target : null;
  return {
    key: event.key,
    altKey: event.altKey,
    ctrlKey: event.ctrlKey,
    metaKey: event.metaKey,
    repeat: event.repeat,
    isComposing: event.isComposing,
    defaultPrevented: event.defaultPrevented,
    target: element
      ? { tagName: element.tagName, isContentEditable: element.isContentEditable, type: element instanceof HTMLInputElement ? element.type : undefined, role: element.getAttribute("role") }
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
