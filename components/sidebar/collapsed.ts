"use client";

import { useSyncExternalStore } from "react";
import { localStore } from "@/components/ui/local-store";

/** Whether the desktop sidebar is collapsed, remembered in this browser (every tab follows). */
const KEY = "parley.sidebar";
const store = localStore();

export function useSidebarCollapsed(): [boolean, (collapsed: boolean) => void] {
  const collapsed = useSyncExternalStore(
    store.subscribe,
    () => window.localStorage.getItem(KEY) === "collapsed",
    () => false,
  );
  const set = (value: boolean) => store.write(KEY, value ? "collapsed" : "open");
  return [collapsed, set];
}
