"use client";

import { type ReactNode, createContext, useContext, useMemo } from "react";
import { Badge } from "@/components/ui/badge";
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

const QueuedContext = createContext<ReadonlySet<string>>(new Set());

export function QueuedMessages({ messages, status, children }: { messages: readonly WithParts[]; status: Status; children: ReactNode }) {
  const queued = useMemo(() => queuedMessageIds(messages, status), [messages, status]);
  return <QueuedContext.Provider value={queued}>{children}</QueuedContext.Provider>;
}

/** "Queued" on a user message waiting for the running reply to finish. */
export function QueuedBadge({ messageId }: { messageId: string }) {
  const queued = useContext(QueuedContext);
  if (!queued.has(messageId)) return null;
  return (
    <Badge tone="amber" data-testid="queued-badge">
      Queued
    </Badge>
  );
}
