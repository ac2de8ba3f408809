"use client";

import { useSyncExternalStore } from "react";

/**
 * Screen-reader announcements: `announce("The agent finished replying.")` from anywhere in
 * the browser, read out through the one pair of live regions <LiveAnnouncer /> renders in
 * the root layout. "polite" waits until the reader is idle (finished replies, a question
 * waiting for approval); "assertive" interrupts (use it sparingly).
 */
export type Politeness = "polite" | "assertive";

interface Announcement {
  text: string;
  /** Counts announcements, so that the same text said twice is said twice. */
  seq: number;
}

const EMPTY: Announcement = { text: "", seq: 0 };
const current: Record<Politeness, Announcement> = { polite: EMPTY, assertive: EMPTY };
const listeners = new Set<() => void>();
let seq = 0;

export function announce(text: string, politeness: Politeness = "polite"): void {
  seq += 1;
  current[politeness] = { text, seq };
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function Region({ politeness }: { politeness: Politeness }) {
  const message = useSyncExternalStore(
    subscribe,
    () => current[politeness],
    () => EMPTY,
  );
  return (
    <div role={politeness === "assertive" ? "alert" : "status"} aria-live={politeness} aria-atomic="true" className="sr-only" data-testid={`announcer-${politeness}`}>
      {/* A new element per announcement: screen readers read a region's new node, even when its text repeats. */}
      {message.text ? <p key={message.seq}>{message.text}</p> : null}
    </div>
  );
}

/** The live regions announce() speaks through; rendered once, in the root layout. */
export function LiveAnnouncer() {
  return (
    <>
      <Region politeness="polite" />
      <Region politeness="assertive" />
    </>
  );
}
