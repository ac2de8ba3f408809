"use client";

import { useSyncExternalStore } from "react";

function subscribe(listener: () => void): () => void {
  document.addEventListener("visibilitychange", listener);
  return () => document.removeEventListener("visibilitychange", listener);
}

/**
 * Whether this tab is shown now. A view that can read its state again when it comes back
 * (the session sidebar, presence) holds its team stream only while shown: browsers allow
 * about six HTTP/1.1 connections per host across all tabs, and every session page holds its
 * own session stream already.
 */
export function usePageVisible(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => document.visibilityState !== "hidden",
    () => true,
  );
}
