"use client";

import { useSyncExternalStore } from "react";

/**
 * The member's choice of browser notifications (off unless turned on here, kept in this
 * browser), and whether the browser lets the page show them.
 */
const KEY = "parley.notifications";
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

export function notificationsSupported(): boolean {
  return typeof window !== "undefined" && "Notification" in window;
}

/** Turned on here, and allowed by the browser. */
function enabledNow(): boolean {
  return notificationsSupported() && window.localStorage.getItem(KEY) === "on" && Notification.permission === "granted";
}

export function useNotificationsEnabled(): boolean {
  return useSyncExternalStore(subscribe, enabledNow, () => false);
}

export function setNotifications(on: boolean): void {
  if (on) window.localStorage.setItem(KEY, "on");
  else window.localStorage.removeItem(KEY);
  for (const listener of listeners) listener();
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
