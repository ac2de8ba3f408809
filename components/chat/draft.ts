"use client";

import { useEffect, useRef } from "react";

/**
 * Text offered to a session's composer from elsewhere on the page (a starter prompt of the
 * empty session, the prompt a revert took back): the composer takes it as its draft — with
 * `keepTyped`, only when nothing is typed there. A tiny event channel, so the two need
 * no shared parent state.
 */
const channel = new EventTarget();
const EVENT = "draft";

export interface OfferOptions {
  /** Leave a draft being typed as it is. */
  keepTyped?: boolean;
}

interface Offer {
  sessionId: string;
  text: string;
  options: OfferOptions;
}

export function offerDraft(sessionId: string, text: string, options: OfferOptions = {}): void {
  channel.dispatchEvent(new CustomEvent<Offer>(EVENT, { detail: { sessionId, text, options } }));
}

/** Whether an offered text replaces the composer's `current` text. */
export function takesOffer(current: string, options: OfferOptions): boolean {
  return !options.keepTyped || current.trim() === "";
}

/** Calls `take` with each text offered to this session's composer. */
export function useDraftOffers(sessionId: string, take: (text: string, options: OfferOptions) => void): void {
  const latest = useRef(take);
  useEffect(() => {
    latest.current = take;
  });
  useEffect(() => {
    const listener = (event: Event) => {
      const offer = (event as CustomEvent<Offer>).detail;
      if (offer.sessionId === sessionId) latest.current(offer.text, offer.options);
    };
    channel.addEventListener(EVENT, listener);
    return () => channel.removeEventListener(EVENT, listener);
  }, [sessionId]);
}
