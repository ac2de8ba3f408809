"use client";

import { useSyncExternalStore } from "react";

/** Whether the desktop sidebar is collapsed, remembered in this browser (every tab follows). */
const KEY = "parley.sidebar";
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

export function useSidebarCollapsed(): [boolean, (collapsed: boolean) => void] {
  const collapsed = useSyncExternalStore(
    subscribe,
    () => window.localStorage.getItem(KEY) === "collapsed",
    () => false,
  );
  const set = (value: boolean) => {
    window.localStorage.setItem(KEY, value ? "collapsed" : "open");
    for (const listener of [...listeners]) listener();
  };
  return [collapsed, set];
}
