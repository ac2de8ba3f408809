"use client";

import { useMutation } from "@tanstack/react-query";
import { type ReactNode, createContext, useContext, useMemo } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { ErrorLine } from "@/components/ui/feedback";
import type { Status, WithParts } from "./types";

/**
 * A message sent while the agent is still answering an earlier one is stored at once and
 * queued by the server: the running loop answers it next. It counts as queued
 * while the newest reply is still in progress and was started before it.
 */
export function queuedMessageIds(messages: readonly WithParts[], status: Status): Set<string> {
  const queued = new Set<string>();
  if (status.type === "idle") return queued;
  const reply = messages.findLast((m) => m.info.role === "assistant")?.info;
  if (!reply || reply.role !== "assistant" || reply.error) return queued;
  const inProgress = reply.time.completed === undefined || reply.finish === "tool-calls";
  if (!inProgress) return queued;
  for (const m of messages) if (m.info.role === "user" && m.info.id > reply.id) queued.add(m.info.id);
  return queued;
}

const QueuedContext = createContext<{ sessionId: string | undefined; ids: ReadonlySet<string> }>({ sessionId: undefined, ids: new Set() });

export function QueuedMessages({ sessionId, messages, status, children }: { sessionId: string; messages: readonly WithParts[]; status: Status; children: ReactNode }) {
  const value = useMemo(() => ({ sessionId, ids: queuedMessageIds(messages, status) }), [sessionId, messages, status]);
  return <QueuedContext.Provider value={value}>{children}</QueuedContext.Provider>;
}

/**
 * "Queued" on a user message waiting for the running reply to finish; its author (`mine`)
 * can cancel it there — the server deletes it unless the agent has read it meanwhile.
 */
export function QueuedBadge({ messageId, mine }: { messageId: string; mine: boolean }) {
  const { sessionId, ids } = useContext(QueuedContext);
  if (!ids.has(messageId)) return null;
  return (
    <>
      <Badge tone="amber" data-testid="queued-badge">
        Queued
      </Badge>
      {mine && sessionId ? <CancelQueued sessionId={sessionId} messageId={messageId} /> : null}
    </>
  );
}

function CancelQueued({ sessionId, messageId }: { sessionId: string; messageId: string }) {
  const trpc = useTRPC();
  const cancel = useMutation(trpc.message.cancelQueued.mutationOptions());
  return (
    <>
      <button
        type="button"
        data-testid="cancel-queued"
        disabled={cancel.isPending}
        onClick={() => cancel.mutate({ sessionId, messageId })}
        className="rounded px-1.5 py-0.5 text-xs font-medium text-zinc-600 underline decoration-zinc-300 underline-offset-2 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-600 disabled:opacity-50"
      >
        Cancel
      </button>
      <ErrorLine inline error={cancel.error} what="Could not cancel" testId="cancel-queued-error" className="text-xs text-red-600" />
    </>
  );
}
