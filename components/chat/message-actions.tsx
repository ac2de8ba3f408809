"use client";

import { useMutation } from "@tanstack/react-query";
import { type KeyboardEvent, createContext, useContext, useId, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { useCopy } from "@/components/ui/copy";
import { Spinner } from "@/components/ui/feedback";
import { requestErrorMessage } from "./composer";
import { offerDraft } from "./draft";
import { messageMarkdown } from "./revert";
import { VersionSwitcher } from "./versions";
import type { AssistantMessage, Part, UserMessage, WithParts } from "./types";

/**
 * What a member can do with a message of their session: copy it, revert to it, edit and
 * resend it, regenerate (or retry) the last reply. Given to the chat by the session page;
 * a share link has none, so no action is shown there.
 */
export interface ChatActions {
  sessionId: string;
  /** The session runs: actions that change it wait. */
  busy: boolean;
  /** The last reply shown: the one that can be regenerated or retried. */
  lastAssistantId: string | undefined;
}

export const ChatActionsContext = createContext<ChatActions | undefined>(undefined);

export function useChatActions(): ChatActions | undefined {
  return useContext(ChatActionsContext);
}

function ActionError({ children }: { children: string | undefined }) {
  if (!children) return null;
  return (
    <p role="alert" data-testid="message-action-error" className="mt-1 text-xs text-red-700">
      {children}
    </p>
  );
}

const ACTION = "h-7 px-2 text-xs text-zinc-500";

function CopyButton({ message }: { message: WithParts }) {
  const { copied, copy, error } = useCopy();
  return (
    <>
      <Button variant="ghost" size="sm" className={ACTION} data-testid="copy-message" onClick={() => copy(messageMarkdown(message))}>
        {copied ? "Copied" : "Copy"}
      </Button>
      <ActionError>{error}</ActionError>
    </>
  );
}

/** `onReverted`: called on success even when the message is gone from the page by then (a revert hides it). */
function useRevert(onReverted?: () => void) {
  const trpc = useTRPC();
  return useMutation(trpc.session.revert.mutationOptions(onReverted ? { onSuccess: onReverted } : {}));
}

/** The actions under a message the user wrote; `onEdit` opens its editor. */
export function UserMessageActions({ info, parts, onEdit }: { info: UserMessage; parts: Part[]; onEdit: () => void }) {
  const actions = useChatActions();
  // The prompt taken back goes to the composer, to be changed and sent again (unless a draft is being typed there).
  const revert = useRevert(() => offerDraft(info.sessionId, messageMarkdown({ info, parts }), { keepTyped: true }));
  if (!actions) return null;
  const busyTitle = actions.busy ? "Wait until the agent is idle" : undefined;
  return (
    <div className="mt-1 flex flex-wrap items-center gap-1" data-testid="message-actions">
      <VersionSwitcher sessionId={actions.sessionId} messageId={info.id} busy={actions.busy} />
      <CopyButton message={{ info, parts }} />
      <Button variant="ghost" size="sm" className={ACTION} data-testid="edit-message" disabled={actions.busy} title={busyTitle} onClick={onEdit}>
        Edit
      </Button>
      <Button
        variant="ghost"
        size="sm"
        className={ACTION}
        data-testid="revert-message"
        disabled={actions.busy || revert.isPending}
        title={busyTitle ?? "Undo this message and everything after it, files included"}
        onClick={() => revert.mutate({ sessionId: actions.sessionId, messageId: info.id })}
      >
        {revert.isPending ? <Spinner className="size-3" /> : null}
        Revert to here
      </Button>
      <ActionError>{revert.error ? requestErrorMessage(revert.error) : undefined}</ActionError>
    </div>
  );
}

/** The actions under a reply: copy; on the last reply, regenerate it (or retry it after a failure or a stop). */
export function AssistantMessageActions({ info, parts }: { info: AssistantMessage; parts: Part[] }) {
  const actions = useChatActions();
  const trpc = useTRPC();
  const rerun = useMutation(trpc.session.rerun.mutationOptions());
  if (!actions || info.time.completed === undefined) return null;
  const last = actions.lastAssistantId === info.id && !info.summary;
  const failed = info.error !== undefined;
  return (
    <div className="mt-1 flex flex-wrap items-center gap-1" data-testid="message-actions">
      <CopyButton message={{ info, parts }} />
      {last ? (
        <Button
          variant="ghost"
          size="sm"
          className={ACTION}
          data-testid={failed ? "retry-reply" : "regenerate-reply"}
          disabled={actions.busy || rerun.isPending}
          onClick={() => rerun.mutate({ sessionId: actions.sessionId, messageId: info.parentId })}
        >
          {rerun.isPending ? <Spinner className="size-3" /> : null}
          {failed ? "Retry" : "Regenerate"}
        </Button>
      ) : null}
      <ActionError>{rerun.error ? requestErrorMessage(rerun.error) : undefined}</ActionError>
    </div>
  );
}

/**
 * "Revert to here" on one part of a reply: that part and what follows are undone. Shown on
 * hover, and no Tab stop (a reply has one per part: dozens on the way to the composer); the
 * keyboard reverts a whole message with the "Revert to here" under it.
 */
export function PartRevertButton({ info, part }: { info: AssistantMessage; part: Part }) {
  const actions = useChatActions();
  const revert = useRevert();
  if (!actions || (part.type !== "text" && part.type !== "tool") || info.time.completed === undefined) return null;
  return (
    <div className="flex items-center justify-end">
      <Button
        variant="ghost"
        size="sm"
        className="h-6 px-1.5 text-[11px] text-zinc-400 opacity-0 group-hover/part:opacity-100 focus-visible:opacity-100"
        data-testid="revert-part"
        tabIndex={-1}
        disabled={actions.busy || revert.isPending}
        title="Undo this part of the reply and everything after it, files included"
        onClick={() => revert.mutate({ sessionId: actions.sessionId, messageId: info.id, partId: part.id })}
      >
        Revert to here
      </Button>
      <ActionError>{revert.error ? requestErrorMessage(revert.error) : undefined}</ActionError>
    </div>
  );
}

/** Edit a message the user wrote and send it again: the session goes back to before it first. */
export function EditMessage({ info, initial, onDone }: { info: UserMessage; initial: string; onDone: () => void }) {
  const actions = useChatActions();
  const trpc = useTRPC();
  const inputId = useId();
  const [text, setText] = useState(initial);
  const rerun = useMutation(trpc.session.rerun.mutationOptions());
  if (!actions) return null;
  const send = () => {
    if (text.trim() === "" || rerun.isPending) return;
    rerun.mutate({ sessionId: actions.sessionId, messageId: info.id, text }, { onSuccess: onDone });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Escape") onDone();
    else if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };
  return (
    <div className="space-y-2" data-testid="edit-message-form">
      <label htmlFor={inputId} className="sr-only">
        Edit the message
      </label>
      <textarea
        id={inputId}
        data-testid="edit-message-input"
        value={text}
        autoFocus
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        rows={3}
        className="block w-full resize-y rounded-lg border border-indigo-200 bg-white px-3 py-2 text-[15px] text-zinc-900 focus:border-indigo-400 focus:ring-2 focus:ring-indigo-100 focus:outline-none"
      />
      <p className="text-xs text-zinc-500">Sending goes back to before this message — its reply and everything after it are undone, files included.</p>
      <div className="flex gap-2">
        <Button size="sm" variant="primary" data-testid="edit-message-send" disabled={text.trim() === "" || rerun.isPending || actions.busy} onClick={send}>
          {rerun.isPending ? <Spinner className="size-3.5" /> : null}
          Send
        </Button>
        <Button size="sm" onClick={onDone}>
          Cancel
        </Button>
      </div>
      <ActionError>{rerun.error ? requestErrorMessage(rerun.error) : undefined}</ActionError>
    </div>
  );
}
