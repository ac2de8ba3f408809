"use client";

import { createContext, useContext } from "react";

/**
 * Whether the card around a view is open. A collapsed tool card keeps its body in the page
 * (find-in-page still reaches it) but heavy views — highlighted code, diffs with word marks —
 * render as plain text until the card is opened. Outside a card, views are open.
 */
export const CardOpenContext = createContext(true);

export function useCardOpen(): boolean {
  return useContext(CardOpenContext);
}
