"use client";

import { useEffect, useRef, useSyncExternalStore } from "react";

/**
 * Whether the member is typing a prompt in a session, in this tab: set by the composer
 * (`useTypingSignal`, from its text), read by the presence heartbeat (use-presence-beat.ts).
 * Typing starts with a change to a non-empty text, ends IDLE_MS after the last change, and
 * at once when the text is emptied (the prompt was sent, or wiped).
 */
export const IDLE_MS = 3_000;

const typing = new Set<string>();
const listeners = new Set<() => void>();

function set(sessionId: string, value: boolean): void {
  if (typing.has(sessionId) === value) return;
  if (value) typing.add(sessionId);
  else typing.delete(sessionId);
  for (const listener of [...listeners]) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Whether this tab's member types in `sessionId` now. */
export function useTyping(sessionId: string): boolean {
  return useSyncExternalStore(
    subscribe,
    () => typing.has(sessionId),
    () => false,
  );
}

/** The composer's side: its text for `sessionId`, as the member edits it. */
export function useTypingSignal(sessionId: string, text: string): void {
  const first = useRef(true);
  useEffect(() => {
    // The text a composer opens with (a restored draft) is not typing.
    if (first.current) {
      first.current = false;
      return;
    }
    if (text.trim() === "") {
      set(sessionId, false);
      return;
    }
    set(sessionId, true);
    const idle = setTimeout(() => set(sessionId, false), IDLE_MS);
    return () => clearTimeout(idle);
  }, [sessionId, text]);
  useEffect(() => () => set(sessionId, false), [sessionId]);
}
