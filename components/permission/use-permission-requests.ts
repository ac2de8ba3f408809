"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useCallback, useMemo, useState } from "react";
import { useEventSource } from "@/components/events/use-event-source";
import { useTRPC, useTRPCClient } from "@/components/trpc/client";
import type { AppRouter } from "@/server/trpc/router";

/** A pending permission request as the API returns it (server/permission/events.ts is the source of truth). */
export type PermissionRequest = inferRouterOutputs<AppRouter>["permission"]["pending"][number];

export interface PermissionRequests {
  /** Still waiting for an answer, oldest first. */
  requests: PermissionRequest[];
  loading: boolean;
  error: unknown;
  /** Hide a request at once (it was answered here, or the server says it is no longer pending). */
  forget: (requestId: string) => void;
}

interface Seen {
  /** Requests announced by events, with the time each event arrived. */
  asked: Map<string, { request: PermissionRequest; at: number }>;
  answered: Set<string>;
}

interface Fetched {
  /** When the fetch started: a request announced before then and missing from it was answered meanwhile. */
  started: number;
  requests: PermissionRequest[];
}

/**
 * The open session's pending permission requests: the stored ones from
 * `permission.pending` (so they survive a reload), then `permission.asked` /
 * `permission.replied` from the session's event stream. An answered id is remembered,
 * so a fetch that started before the answer cannot bring its card back; an asked event
 * that arrives while a fetch is in flight is kept even if that fetch missed it (a request
 * is stored before it is announced, so a fetch started after its event would list it).
 */
export function usePermissionRequests(sessionId: string): PermissionRequests {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const pendingKey = [...trpc.permission.pending.queryKey({ sessionId }), "live"];
  const pending = useQuery<Fetched>({
    queryKey: pendingKey,
    staleTime: 0,
    queryFn: async ({ signal }) => {
      const started = Date.now();
      return { started, requests: await client.permission.pending.query({ sessionId }, { signal }) };
    },
  });
  const [seen, setSeen] = useState<Seen>(() => ({ asked: new Map(), answered: new Set() }));

  const forget = useCallback(
    (requestId: string) =>
      setSeen((current) => (current.answered.has(requestId) ? current : { ...current, answered: new Set(current.answered).add(requestId) })),
    [],
  );

  useEventSource(`/api/sessions/${encodeURIComponent(sessionId)}/events`, {
    onEvent: (event) => {
      if (event.name === "permission.asked") {
        const { request } = event.payload;
        if (request.sessionId !== sessionId) return;
        setSeen((current) => ({ ...current, asked: new Map(current.asked).set(request.id, { request, at: Date.now() }) }));
      } else if (event.name === "permission.replied") {
        const { sessionId: of, requestId } = event.payload;
        if (of === sessionId) forget(requestId);
      }
    },
    // Events published while the stream was closed (or before it first opened) are
    // missed: read the stored state again on every (re)connection.
    onOpen: () => void queryClient.invalidateQueries({ queryKey: pendingKey }),
  });

  const requests = useMemo(() => {
    const all = new Map<string, PermissionRequest>();
    for (const request of pending.data?.requests ?? []) all.set(request.id, request);
    const started = pending.data?.started ?? 0;
    for (const [id, { request, at }] of seen.asked) if (!all.has(id) && at >= started) all.set(id, request);
    return [...all.values()].filter((r) => !seen.answered.has(r.id)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }, [pending.data, seen]);

  return { requests, loading: pending.isPending, error: pending.error, forget };
}
