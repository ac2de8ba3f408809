"use client";

import { useEffect, useRef } from "react";

/**
 * Text offered to a session's composer from elsewhere on the page (a starter prompt of the
 * empty session): the composer takes it as its draft. A tiny event channel, so the two need
 * no shared parent state.
 */
const channel = new EventTarget();
const EVENT = "draft";

interface Offer {
  sessionId: string;
  text: string;
}

export function offerDraft(sessionId: string, text: string): void {
  channel.dispatchEvent(new CustomEvent<Offer>(EVENT, { detail: { sessionId, text } }));
}

/** Calls `take` with each text offered to this session's composer. */
export function useDraftOffers(sessionId: string, take: (text: string) => void): void {
  const latest = useRef(take);
  useEffect(() => {
    latest.current = take;
  });
  useEffect(() => {
    const listener = (event: Event) => {
      const offer = (event as CustomEvent<Offer>).detail;
      if (offer.sessionId === sessionId) latest.current(offer.text);
    };
    channel.addEventListener(EVENT, listener);
    return () => channel.removeEventListener(EVENT, listener);
  }, [sessionId]);
}
