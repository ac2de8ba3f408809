"use client";

import { type KeyboardEvent, useState } from "react";
import { agentCycleStep } from "./agent-choice";
import { listKeyInput } from "./list-keys";

/** Enter sends; Shift+Enter (and Enter while an input method is composing) is a newline. */
export function isSendKey(event: Pick<KeyboardEvent, "key" | "shiftKey" | "altKey" | "nativeEvent">): boolean {
  return event.key === "Enter" && !event.shiftKey && !event.altKey && !event.nativeEvent.isComposing;
}

type BoxKeyEvent = KeyboardEvent<HTMLTextAreaElement>;

/**
 * The message box's keys, in order: an open list (the `/` menu, then the `@` files) takes
 * its keys; in the empty box Tab / Shift+Tab cycle the agent — unless Escape released the
 * box, so that Esc then Tab leaves it; Enter sends. Typing or leaving the box ends the release.
 */
export function useComposerKeys(input: {
  lists: ReadonlyArray<{ onKeyDown: (event: BoxKeyEvent) => boolean }>;
  /** Whether Tab may cycle the agent: nothing typed or attached, and more than one agent. */
  cycles: boolean;
  cycle: (step: 1 | -1) => void;
  send: () => void;
}) {
  const [released, setReleased] = useState(false);
  const onKeyDown = (event: BoxKeyEvent) => {
    if (input.lists.some((list) => list.onKeyDown(event))) return;
    const step = agentCycleStep(listKeyInput(event), { empty: input.cycles, released });
    if (step !== undefined) {
      event.preventDefault();
      input.cycle(step);
      return;
    }
    // Escape also stops a running reply (the page's own listener): here it only frees Tab.
    if (event.key === "Escape") setReleased(true);
    if (!isSendKey(event)) return;
    event.preventDefault();
    input.send();
  };
  return { onKeyDown, reset: () => setReleased(false) };
}
