"use client";

import { useEffect, useState } from "react";
import { Icon } from "@/components/parts/icons";
import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/feedback";
import type { Status } from "./types";

const IDLE: Status = { type: "idle" };

/**
 * The session's run status from its two sources: the status stored on the session
 * (`Info.status`, read at load, on (re)connect and with every `session.updated`) and the
 * live `session.status` events. Whichever changed last is the newest; when both change
 * in the same render, the live event wins.
 */
export function useSessionStatus(stored: Status | undefined, live: Status | undefined): Status {
  const [state, setState] = useState({ stored, live, current: live ?? stored ?? IDLE });
  if (state.stored !== stored || state.live !== live) {
    const current = pickStatus(state, { stored, live });
    setState({ stored, live, current });
    return current;
  }
  return state.current;
}

/** Which status to show after one or both sources changed. */
export function pickStatus(
  previous: { stored: Status | undefined; live: Status | undefined; current: Status },
  next: { stored: Status | undefined; live: Status | undefined },
): Status {
  if (next.live !== previous.live && next.live) return next.live;
  if (next.stored !== previous.stored && next.stored) return next.stored;
  return previous.current;
}

export function isRunning(status: Status): boolean {
  return status.type !== "idle";
}

/** Whole seconds left until `next` (rounded up, never negative). */
export function secondsUntil(next: number, now: number): number {
  return Math.max(0, Math.ceil((next - now) / 1000));
}

/** The current time, read at mount and refreshed every `intervalMs`. */
function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** idle / working / retrying, for the session header. */
export function SessionStatusBadge({ status }: { status: Status }) {
  switch (status.type) {
    case "idle":
      return (
        <Badge data-testid="session-status" data-status="idle">
          Idle
        </Badge>
      );
    case "busy":
      return (
        <Badge tone="blue" data-testid="session-status" data-status="busy">
          <Spinner className="size-3" />
          Working
        </Badge>
      );
    case "retry":
      return (
        <Badge tone="amber" data-testid="session-status" data-status="retry">
          Retrying (attempt {status.attempt})
        </Badge>
      );
  }
}

/** While a failed model call waits to be retried: which attempt failed, why, and a live countdown. */
export function RetryBanner({ status }: { status: Status }) {
  return status.type === "retry" ? <RetryNotice status={status} /> : null;
}

/** Mounted only while retrying, so its clock starts when the retry does. */
function RetryNotice({ status }: { status: Extract<Status, { type: "retry" }> }) {
  const now = useNow(250);
  const seconds = secondsUntil(status.next, now);
  return (
    <div
      role="status"
      data-testid="retry-banner"
      data-attempt={status.attempt}
      className="flex items-start gap-2.5 rounded-xl border border-amber-200 bg-amber-50 px-3.5 py-2.5 text-sm text-amber-900"
    >
      <Icon name="retry" className="mt-0.5 size-4 shrink-0 text-amber-600" />
      <div className="min-w-0 flex-1">
        <p className="font-medium">
          Attempt {status.attempt} failed —{" "}
          <span data-testid="retry-countdown" className="tabular-nums">
            {seconds > 0 ? `retrying in ${seconds}s` : "retrying now…"}
          </span>
        </p>
        <p data-testid="retry-message" className="mt-0.5 break-words text-amber-800">
          {status.message}
        </p>
      </div>
    </div>
  );
}
