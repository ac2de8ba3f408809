/**
 * The keyboard of the composer's completion lists (the `@` file list and the `/` command
 * menu), in one place: ↑/↓ move the highlight (wrapping), Enter and Tab choose the
 * highlighted option, Escape closes the list — and only the list.
 */

/** The parts of a key event the rule reads. */
export interface ListKeyInput {
  key: string;
  shiftKey: boolean;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  /** An input method is composing (the key belongs to it). */
  composing: boolean;
}

export type ListKey =
  | { type: "move"; index: number }
  | { type: "choose"; index: number; key: "Enter" | "Tab" }
  | { type: "close" };

/** What a key does to a list of `count` options whose option `active` is highlighted; undefined when the list does not use it. */
export function listKey(event: ListKeyInput, count: number, active: number): ListKey | undefined {
  if (event.composing) return undefined;
  if (event.key === "Escape") return { type: "close" };
  if (count === 0 || event.altKey || event.ctrlKey || event.metaKey) return undefined;
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    const step = event.key === "ArrowDown" ? 1 : -1;
    return { type: "move", index: (active + step + count) % count };
  }
  if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey) return { type: "choose", index: Math.min(active, count - 1), key: event.key };
  return undefined;
}

/** The rule's input from a React or DOM keyboard event. */
export function listKeyInput(event: { key: string; shiftKey: boolean; altKey: boolean; ctrlKey: boolean; metaKey: boolean; nativeEvent: { isComposing: boolean } }): ListKeyInput {
  return { key: event.key, shiftKey: event.shiftKey, altKey: event.altKey, ctrlKey: event.ctrlKey, metaKey: event.metaKey, composing: event.nativeEvent.isComposing };
}

/** A key event a list handles: read by `listKey`, then prevented (and, for Escape, kept from the page's own Escape). */
export interface HandledKeyEvent {
  key: string;
  shiftKey: boolean;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  nativeEvent: { isComposing: boolean };
  preventDefault: () => void;
  stopPropagation: () => void;
}

/**
 * Applies `listKey` to a list: calls `move`, `choose` or `close` and answers true when the
 * key was the list's. Escape's event goes no further, so closing a list never stops the agent.
 */
export function handleListKey(
  event: HandledKeyEvent,
  list: { count: number; active: number },
  on: { move: (index: number) => void; choose: (index: number, key: "Enter" | "Tab") => void; close: () => void },
): boolean {
  const action = listKey(listKeyInput(event), list.count, list.active);
  if (!action) return false;
  event.preventDefault();
  if (action.type === "close") {
    event.stopPropagation();
    on.close();
  } else if (action.type === "move") on.move(action.index);
  else on.choose(action.index, action.key);
  return true;
}
