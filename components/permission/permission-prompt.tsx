"use client";

import { type ReactNode, useCallback, useMemo, useRef, useState } from "react";
import type { WithParts } from "@/components/chat/types";
import { Icon } from "@/components/parts/icons";
import { ErrorNotice, errorMessage } from "@/components/ui/feedback";
import { type InlineQuestions, InlineQuestionsContext, toolKey } from "./inline";
import { useMayBypassPolicy } from "./always";
import { ANSWER_KEYS, offersAlways } from "./keys";
import { PermissionCard, askedTo } from "./permission-card";
import { useQuestionKeys } from "./use-question-keys";
import { type PermissionRequest, usePermissionRequests } from "./use-permission-requests";

/** What a screen reader is told of the oldest question. */
export function announcement(request: PermissionRequest | undefined, mayBypassPolicy = false): string {
  if (!request) return "";
  const keys = [`${ANSWER_KEYS.once.label} or Enter to allow once`, ...(offersAlways(request, mayBypassPolicy) ? [`${ANSWER_KEYS.always.label} to always allow`] : []), `${ANSWER_KEYS.reject.label} to reject`];
  return `Permission needed. ${askedTo(request.permission)}: ${request.patterns.join(", ")}. Press ${keys.join(", ")}.`;
}

/** The marker of a page where a question waits (on the always-present announcement). */
const WAITING_ATTRIBUTE = "data-question-waiting";

/** Whether a permission question waits on this page: Escape then never stops the turn (use-session-keyboard.ts). */
export function questionWaiting(): boolean {
  return document.querySelector(`[${WAITING_ATTRIBUTE}]`) !== null;
}

/** The question to bring into view, and in which place; `seq` counts the wishes. */
interface RevealTarget {
  id: string | undefined;
  inline: boolean;
  seq: number;
}

/**
 * The open session's pending permission questions, around its conversation (`children`):
 * each question is shown inside the tool call it belongs to (ToolQuestion) when that call
 * is among `messages`, else below the conversation. The oldest is brought into view when
 * it arrives, answers to single keys (keys.ts; a key pressed while it is out of view only
 * brings it back) and is announced to screen readers. Answered from any tab, a question
 * disappears everywhere.
 */
export function PermissionPrompt({ sessionId, messages, children }: { sessionId: string; messages: readonly WithParts[]; children: ReactNode }) {
  const { requests, error, forget } = usePermissionRequests(sessionId);
  const mayBypassPolicy = useMayBypassPolicy();
  const [notices, setNotices] = useState<{ id: string; message: string }[]>([]);

  // Which questions have their tool call among the messages (kept as a string, so what
  // depends on it changes only when the answer does, not with every streamed message).
  const tools = useMemo(() => {
    const keys = new Set<string>();
    for (const message of messages) for (const part of message.parts) if (part.type === "tool") keys.add(toolKey({ messageId: part.messageId, callId: part.callId }));
    return keys;
  }, [messages]);
  const inlineIds = requests.flatMap((request) => (request.tool && tools.has(toolKey(request.tool)) ? [request.id] : [])).join(" ");
  const inline = useCallback((request: PermissionRequest) => inlineIds.split(" ").includes(request.id), [inlineIds]);
  const oldest = requests[0];
  const oldestInline = oldest ? inline(oldest) : false;
  const below = requests.filter((request) => !inline(request));

  // A new oldest question (or the oldest moving into its call) is to be brought into view.
  const [target, setTarget] = useState<RevealTarget>({ id: undefined, inline: false, seq: 0 });
  if (oldest && (oldest.id !== target.id || oldestInline !== target.inline)) setTarget({ id: oldest.id, inline: oldestInline, seq: target.seq + 1 });
  const granted = useRef(0);
  const claimReveal = useCallback((seq: number) => {
    if (seq <= granted.current) return false;
    granted.current = seq;
    return true;
  }, []);

  const bind = useQuestionKeys(oldest, mayBypassPolicy, () => setTarget((current) => ({ ...current, seq: current.seq + 1 })));

  const cardProps = useCallback(
    (request: PermissionRequest) => ({
      oldest: request.id === target.id,
      revealSeq: request.id === target.id ? target.seq : undefined,
      claimReveal,
      bind,
      onAnswered: () => forget(request.id),
      onGone: (message: string) => {
        forget(request.id);
        setNotices((list) => [...list.filter((n) => n.id !== request.id), { id: request.id, message }]);
      },
    }),
    [target, claimReveal, bind, forget],
  );
  const seq = target.seq;
  const questions = useMemo<InlineQuestions>(() => {
    const byTool = new Map<string, PermissionRequest>();
    for (const request of requests) if (request.tool && inline(request)) byTool.set(toolKey(request.tool), request);
    const messageId = oldest?.tool && oldestInline ? oldest.tool.messageId : undefined;
    return { byTool, oldestMessageId: messageId, reveal: messageId ? { messageId, seq } : undefined, cardProps };
  }, [requests, inline, oldest, oldestInline, seq, cardProps]);

  return (
    <InlineQuestionsContext value={questions}>
      {children}
      <p role="status" aria-live="polite" aria-atomic="true" data-testid="permission-announcement" {...{ [WAITING_ATTRIBUTE]: oldest ? "" : undefined }} className="sr-only">
        {announcement(oldest, mayBypassPolicy)}
      </p>
      {below.length > 0 || notices.length > 0 || error ? (
        <section aria-label="Permission requests" data-testid="permission-prompt" className="space-y-3">
          {error ? <ErrorNotice title="Could not load the pending permission requests">{errorMessage(error)}</ErrorNotice> : null}
          {notices.map((notice) => (
            <div key={notice.id} role="alert" data-testid="permission-reply-error" className="flex items-start gap-3 rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
              <Icon name="alert" className="mt-0.5 size-4 text-amber-600" />
              <p className="min-w-0 flex-1">{notice.message}</p>
              <button
                type="button"
                aria-label="Dismiss"
                className="rounded p-0.5 text-amber-700 hover:bg-amber-100 hover:text-amber-900"
                onClick={() => setNotices((list) => list.filter((n) => n.id !== notice.id))}
              >
                <Icon name="x" className="size-4" />
              </button>
            </div>
          ))}
          {below.map((request) => (
            <PermissionCard key={request.id} request={request} inline={false} {...cardProps(request)} />
          ))}
        </section>
      ) : null}
    </InlineQuestionsContext>
  );
}
