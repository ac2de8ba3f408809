"use client";

import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { requestErrorMessage } from "./composer-notices";
import { useChatActions } from "./message-actions";

/**
 * "Retry now" and "Stop retrying" on the retry card of a failed model call that waits for
 * its next attempt (server/session/retry-control.ts). Only in a member's chat: a share
 * page provides no chat actions, so it shows the card alone.
 */
export function RetryActions() {
  const chat = useChatActions();
  // Only while the session runs: a reply left waiting by a server that stopped has no wait to act on.
  return chat?.busy ? <RetryButtons sessionId={chat.sessionId} /> : null;
}

function RetryButtons({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const now = useMutation(trpc.session.retryNow.mutationOptions());
  const stop = useMutation(trpc.session.stopRetrying.mutationOptions());
  const pending = now.isPending || stop.isPending;
  const failed = now.error ?? stop.error;
  return (
    <div className="mt-2 flex flex-wrap items-center gap-2">
      <Button size="sm" data-testid="retry-now" disabled={pending} onClick={() => now.mutate({ sessionId })}>
        Retry now
      </Button>
      <Button size="sm" variant="ghost" data-testid="stop-retrying" disabled={pending} onClick={() => stop.mutate({ sessionId })}>
        Stop retrying
      </Button>
      {failed ? (
        <p role="alert" data-testid="retry-action-error" className="text-xs text-red-700">
          {requestErrorMessage(failed)}
        </p>
      ) : null}
    </div>
  );
}
