"use client";

import { createContext, use } from "react";
import { PermissionCard, type PermissionCardProps } from "./permission-card";
import type { PermissionRequest } from "./use-permission-requests";

/** A tool call's key among the pending questions: its message and call id. */
export function toolKey(tool: { messageId: string; callId: string }): string {
  return `${tool.messageId}:${tool.callId}`;
}

/**
 * The pending questions of the open session that are shown inside their tool calls
 * (PermissionPrompt provides it; a share page has none, so its tools show no card).
 */
export interface InlineQuestions {
  byTool: ReadonlyMap<string, PermissionRequest>;
  /** The message of the oldest question when that one is shown inline (the list then stays on it). */
  oldestMessageId: string | undefined;
  /**
   * The oldest question is to be brought into view (it arrived, or a key was pressed while
   * it was out of view): each new `seq` is one such wish. The list brings its row in.
   */
  reveal: { messageId: string; seq: number } | undefined;
  cardProps: (request: PermissionRequest) => Omit<PermissionCardProps, "request" | "inline">;
}

export const InlineQuestionsContext = createContext<InlineQuestions | undefined>(undefined);

/** The question a tool call waits on, right below the call (nothing when it waits on none). */
export function ToolQuestion({ messageId, callId }: { messageId: string; callId: string }) {
  const questions = use(InlineQuestionsContext);
  const request = questions?.byTool.get(toolKey({ messageId, callId }));
  if (!questions || !request) return null;
  return (
    <div className="border-t border-amber-200 bg-amber-50/40 p-2.5">
      <PermissionCard request={request} inline {...questions.cardProps(request)} />
    </div>
  );
}
