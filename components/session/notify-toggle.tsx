"use client";

import { useState } from "react";
import { announce } from "@/components/ui/announce";
import { Button } from "@/components/ui/button";
import { enableNotifications, setNotifications, useNotificationsEnabled } from "./notifications";

const REFUSED = {
  unsupported: "This browser cannot show notifications.",
  denied: "Notifications are blocked for this site in the browser's settings.",
} as const;

/**
 * Browser notifications when this page is hidden and a question waits or a turn ends:
 * off by default; the first time they are turned on the browser asks for permission.
 */
export function NotifyToggle() {
  const enabled = useNotificationsEnabled();
  const [refused, setRefused] = useState<keyof typeof REFUSED | undefined>(undefined);
  const toggle = async () => {
    if (enabled) {
      setNotifications(false);
      announce("Notifications off.");
      return;
    }
    const result = await enableNotifications();
    setRefused(result === "on" ? undefined : result);
    announce(result === "on" ? "Notifications on: you will be told when the agent needs approval or finishes." : REFUSED[result]);
  };
  return (
    <Button
      size="sm"
      aria-pressed={enabled}
      data-testid="notify-toggle"
      title={refused ? REFUSED[refused] : enabled ? "Notifications are on while this tab is hidden" : "Notify me when the agent needs approval or finishes"}
      onClick={() => void toggle()}
    >
      <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className="size-4">
        <path d="M10 2a6 6 0 0 0-6 6v2.59l-1.7 1.7A1 1 0 0 0 3 14h14a1 1 0 0 0 .7-1.7L16 10.58V8a6 6 0 0 0-6-6zm0 16a3 3 0 0 1-2.83-2h5.66A3 3 0 0 1 10 18z" />
      </svg>
      {enabled ? "Notifying" : "Notify me"}
    </Button>
  );
}
