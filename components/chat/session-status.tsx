"use client";

import { useState } from "react";
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
