"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { useTyping } from "./typing";

/** Until the server says otherwise (its answer carries `heartbeatMs`). */
const FIRST_HEARTBEAT_MS = 3_000;

/**
 * This tab is in `sessionId`: a heartbeat at once, every `heartbeatMs` after, and at once
 * when the member starts or stops typing; a word to the server when the tab leaves the
 * session (another page, or the tab closes: sent with `keepalive`, so it goes out even as
 * the page unloads). A tab that dies without a word is dropped when its heartbeat ends.
 */
export function usePresenceBeat(sessionId: string): void {
  const trpc = useTRPC();
  const typing = useTyping(sessionId);
  const [client] = useState(newClientId);
  const beat = useMutation(trpc.presence.beat.mutationOptions());
  const { mutate } = beat;
  const [heartbeatMs, setHeartbeatMs] = useState(FIRST_HEARTBEAT_MS);

  useEffect(() => {
    const send = () => mutate({ sessionId, client, typing }, { onSuccess: (answer) => setHeartbeatMs(answer.heartbeatMs) });
    send();
    const timer = setInterval(send, heartbeatMs);
    return () => clearInterval(timer);
  }, [sessionId, client, typing, heartbeatMs, mutate]);

  useEffect(() => {
    let gone = false;
    const leave = () => {
      if (gone) return;
      gone = true;
      void fetch("/api/trpc/presence.leave", {
        method: "POST",
        keepalive: true,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ sessionId, client }),
      }).catch(() => undefined);
    };
    // Back from the page cache (history navigation): present again with the next heartbeat.
    const back = (event: PageTransitionEvent) => {
      if (event.persisted) gone = false;
    };
    window.addEventListener("pagehide", leave);
    window.addEventListener("pageshow", back);
    return () => {
      window.removeEventListener("pagehide", leave);
      window.removeEventListener("pageshow", back);
      leave();
    };
  }, [sessionId, client]);
}

function newClientId(): string {
  return crypto.randomUUID();
}
