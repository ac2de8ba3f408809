"use client";

import { useCallback, useEffect, useEffectEvent, useRef } from "react";
import { focusMessageBox } from "@/components/ui/shortcut-help";
import { answerForKey, keyPress, offersAlways, questionEscape } from "./keys";
import type { CardHandle } from "./permission-card";
import { inView } from "./reveal";
import type { PermissionRequest } from "./use-permission-requests";

/** Whether a dialog is open over the page: keys are then the dialog's. */
function dialogOpen(): boolean {
  return document.querySelector('[aria-modal="true"], dialog[open]') !== null;
}

/**
 * The keys of the oldest pending question (`oldest`): Y / A / N / Enter answer it, from the
 * page or the empty message box; Escape moves the focus to it, and from there rejects it
 * (keys.ts). `reveal` brings it into view (a key pressed while it is out of view does only
 * that). Returns `bind`, through which each card hands its handle while it is the oldest.
 */
export function useQuestionKeys(oldest: PermissionRequest | undefined, mayBypassPolicy: boolean, reveal: () => void) {
  const handles = useRef(new Map<string, CardHandle>());
  /** The question Escape asked to focus while its card was not mounted: focused once it is. */
  const wantsFocus = useRef<string | undefined>(undefined);
  const bind = useCallback((requestId: string, handle: CardHandle | null) => {
    if (handle) handles.current.set(requestId, handle);
    else handles.current.delete(requestId);
    if (handle && wantsFocus.current === requestId) {
      wantsFocus.current = undefined;
      handle.element.focus();
    }
  }, []);

  // Keys for the oldest question (keys.ts). First (capture phase, before the message box's
  // own keys): Escape, and answers typed into the empty message box; then (bubble phase,
  // after the page's controls) the other answers. A key pressed while the question is out
  // of view only brings it back.
  const onKey = useEffectEvent((event: KeyboardEvent, capture: boolean) => {
    if (!oldest || dialogOpen()) return;
    const handle = handles.current.get(oldest.id);
    const press = keyPress(event, handle?.element);
    const escape = capture ? questionEscape(press) : undefined;
    if (capture && !escape && !press.target?.messageBox) return;
    if (!capture && press.target?.messageBox) return;
    const given = escape === "reject" ? "reject" : escape ? undefined : answerForKey(press, { always: offersAlways(oldest, mayBypassPolicy) });
    if ((!given && !escape) || (handle && !handle.keys)) return;
    event.preventDefault();
    if (capture) event.stopPropagation();
    if (escape === "focus-question") {
      if (handle) handle.element.focus();
      else wantsFocus.current = oldest.id;
    }
    if (given && handle && (escape || inView(handle.element))) {
      handle.answer(given);
      // Answered from its card: the focus goes back to where the next message is typed.
      if (press.target?.inQuestion) focusMessageBox();
    } else if (!handle || !inView(handle.element)) reveal();
  });
  const asking = oldest !== undefined;
  useEffect(() => {
    if (!asking) return;
    const first = (event: KeyboardEvent) => onKey(event, true);
    const then = (event: KeyboardEvent) => onKey(event, false);
    window.addEventListener("keydown", first, { capture: true });
    window.addEventListener("keydown", then);
    return () => {
      window.removeEventListener("keydown", first, { capture: true });
      window.removeEventListener("keydown", then);
    };
  }, [asking]);
  return bind;
}
