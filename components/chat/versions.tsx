"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";
import { requestErrorMessage } from "./composer";
import type { WithParts } from "./types";

/**
 * "‹ 1/2 ›" on the first message of a turn that has earlier versions (an edit & resend, a
 * regenerate: server/session/versions.ts). The arrows switch the conversation from there
 * on to the previous or next version — its messages and its files come back; refused
 * while the agent runs.
 */
export function VersionSwitcher({ sessionId, messageId, busy }: { sessionId: string; messageId: string; busy: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const versions = useQuery(trpc.session.versions.queryOptions({ sessionId }));
  const change = useMutation(
    trpc.session.switchVersion.mutationOptions({ onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.session.versions.queryKey({ sessionId }) }) }),
  );
  const point = versions.data?.find((p) => p.messageId === messageId);
  if (!point || point.versions.length < 2 || point.current < 1) return null;
  const previous = point.versions[point.current - 2]?.id;
  const next = point.versions[point.current]?.id;
  const go = (versionId: string | null | undefined) => {
    if (versionId) change.mutate({ sessionId, versionId });
  };
  const why = busy ? "Wait until the agent is idle" : undefined;
  return (
    <div role="group" aria-label="Versions of this turn" data-testid="version-switcher" className="inline-flex items-center text-xs text-zinc-500">
      <Button variant="ghost" size="sm" className="h-7 px-2" aria-label="Previous version" title={why ?? "Previous version (its files too)"} data-testid="version-previous" disabled={!previous || busy || change.isPending} onClick={() => go(previous)}>
        ‹
      </Button>
      <span data-testid="version-position" className="tabular-nums" aria-live="polite">
        {change.isPending ? <Spinner className="size-3" /> : `${point.current}/${point.versions.length}`}
      </span>
      <Button variant="ghost" size="sm" className="h-7 px-2" aria-label="Next version" title={why ?? "Next version (its files too)"} data-testid="version-next" disabled={!next || busy || change.isPending} onClick={() => go(next)}>
        ›
      </Button>
      {change.error ? (
        <p role="alert" data-testid="version-error" className="ml-1 text-xs text-red-700">
          {requestErrorMessage(change.error)}
        </p>
      ) : null}
    </div>
  );
}

/**
 * Keep the session's versions fresh: asked again whenever the messages shown change in a
 * way a new version or a switch makes (how many there are, the last one), whoever did it.
 */
export function useVersionsRefresh(sessionId: string, messages: WithParts[]): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const key = `${messages.length}:${messages.at(-1)?.info.id ?? ""}`;
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: trpc.session.versions.queryKey({ sessionId }) });
  }, [key, sessionId, queryClient, trpc]);
}
