"use client";

import { useSyncExternalStore } from "react";
import { localStore } from "@/components/ui/local-store";

/**
 * The member's choice of browser notifications (off unless turned on here, kept in this
 * browser), and whether the browser lets the page show them.
 */
const KEY = "parley.notifications";
const store = localStore();

export function notificationsSupported(): boolean {
  return typeof window !== "undefined" && "Notification" in window;
}

/** Turned on here, and allowed by the browser. */
function enabledNow(): boolean {
  return notificationsSupported() && window.localStorage.getItem(KEY) === "on" && Notification.permission === "granted";
}

export function useNotificationsEnabled(): boolean {
  return useSyncExternalStore(store.subscribe, enabledNow, () => false);
}

export function setNotifications(on: boolean): void {
  store.write(KEY, on ? "on" : undefined);
}

/**
 * Turn notifications on: asks the browser's permission the first time. Resolves with
 * what happened: on, or why not (the browser has none, or the member refused them).
 */
export async function enableNotifications(): Promise<"on" | "unsupported" | "denied"> {
  if (!notificationsSupported()) return "unsupported";
  const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
  if (permission !== "granted") return "denied";
  setNotifications(true);
  return "on";
}

/** Show a notification (when enabled): clicking it brings the page back. */
export function notify(title: string, body: string, tag: string): void {
  if (!enabledNow()) return;
  const notification = new Notification(title, { body, tag });
  notification.onclick = () => {
    window.focus();
    notification.close();
  };
}
