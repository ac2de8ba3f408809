"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useEventSource } from "@/components/events/use-event-source";
import { usePageVisible } from "@/components/events/use-page-visible";
import { useTRPC, useTRPCClient } from "@/components/trpc/client";
import { type Presence, type SessionViewer, viewersOf, withEvent, withListed, withoutExpired } from "./viewers";

/** How often entries whose heartbeat ran out are dropped (ms). */
const TICK_MS = 1_000;

/**
 * Who else is in `sessionId` now (and who of them types): the team's presence as the
 * server lists it at each opening of the team's live stream (heartbeats sent while it was
 * down are missed), kept current by the stream's presence events.
 */
export function useSessionViewers(sessionId: string, selfId: string | undefined): SessionViewer[] {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const teamId = useQuery(trpc.team.current.queryOptions()).data?.id;
  // While the tab is hidden nobody looks: its stream is let go, and listed again when shown.
  const visible = usePageVisible();
  const [held, setHeld] = useState<Presence>(new Map());
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    const timer = setInterval(() => {
      const at = Date.now();
      setNow(at);
      setHeld((current) => withoutExpired(current, at));
    }, TICK_MS);
    return () => clearInterval(timer);
  }, []);

  useEventSource(teamId && visible ? `/api/teams/${encodeURIComponent(teamId)}/events` : undefined, {
    onEvent: (event) => setHeld((current) => withEvent(current, event, Date.now())),
    onOpen: () => {
      const asked = Date.now();
      client.presence.list.query().then(
        (listed) => setHeld((current) => withListed(current, listed, asked)),
        // Live events still come; the next opening lists again.
        () => undefined,
      );
    },
  });
  return viewersOf(held, sessionId, selfId, now);
}
