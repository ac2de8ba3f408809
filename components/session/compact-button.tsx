"use client";

import { useMutation } from "@tanstack/react-query";
import type { Status, WithParts } from "@/components/chat/types";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { ErrorLine, Spinner } from "@/components/ui/feedback";
import { totalTokens } from "@/components/ui/format";
import type { SessionInfo } from "./types";

/**
 * Manual compaction: asks the server to summarize the conversation now. Offered only when
 * there is something to compact (the session has used tokens); not while the session
 * runs or compacts (the server refuses that too); a refusal or failure is shown next to
 * the button.
 */
export function CompactButton({ info, status, messages }: { info: SessionInfo; status: Status | undefined; messages: readonly WithParts[] }) {
  const trpc = useTRPC();
  const compact = useMutation(trpc.session.compact.mutationOptions());
  const busy = (status !== undefined && status.type !== "idle") || info.time.compacting !== undefined;
  const used = totalTokens(info.tokens) > 0 || messages.some((m) => m.info.role === "assistant" && totalTokens(m.info.tokens) > 0);
  if (!used && !compact.error) return null;
  return (
    <span className="inline-flex items-center gap-2">
      <Button
        size="sm"
        variant="ghost"
        data-testid="compact-button"
        title={busy ? "The session is working; compact it when it is idle" : "Summarize the conversation so far to free the model's context"}
        disabled={busy || compact.isPending}
        onClick={() => compact.mutate({ sessionId: info.id })}
      >
        {compact.isPending ? <Spinner className="size-3.5" /> : null}
        Compact
      </Button>
      <ErrorLine inline error={compact.error} what="Could not compact" testId="compact-error" className="text-xs text-red-600" />
    </span>
  );
}
