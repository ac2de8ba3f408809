"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, type KeyboardEvent, useState } from "react";
import type { SessionInfo } from "@/components/session/types";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";
import { MESSAGE_BOX_ID } from "@/components/ui/keyboard";
import { ModelPicker, type ModelRef, useModelChoice } from "./model-picker";
import { RetryBanner, isRunning } from "./session-status";
import type { Status, WithParts } from "./types";

/**
 * A readable reason a request failed: the validation messages of a rejected input (e.g.
 * a message over the size limit), else the error's own message.
 */
export function requestErrorMessage(error: { message: string; data?: { issues?: { message: string }[] | undefined } | null | undefined }): string {
  const issues = error.data?.issues ?? [];
  return issues.length > 0 ? issues.map((issue) => issue.message).join("; ") : error.message;
}

/** Enter sends; Shift+Enter (and Enter while an input method is composing) is a newline. */
export function isSendKey(event: Pick<KeyboardEvent, "key" | "shiftKey" | "altKey" | "nativeEvent">): boolean {
  return event.key === "Enter" && !event.shiftKey && !event.altKey && !event.nativeEvent.isComposing;
}

function lastUserModel(messages: readonly WithParts[]): ModelRef | undefined {
  const last = messages.findLast((m) => m.info.role === "user")?.info;
  return last?.role === "user" ? last.model : undefined;
}

/**
 * Where the user talks to the agent: the message box, the model picker, Send and — while
 * the agent works — Stop. A message sent while the agent works is queued by the server.
 */
export function Composer({ session, status, messages }: { session: SessionInfo; status: Status; messages: readonly WithParts[] }) {
  const trpc = useTRPC();
  // The page's message box: "/" and the skip link focus it (components/ui/keyboard.ts).
  const inputId = MESSAGE_BOX_ID;
  const [text, setText] = useState("");
  const choice = useModelChoice(session.id, lastUserModel(messages), session.model);
  const prompt = useMutation(trpc.session.prompt.mutationOptions());
  const abort = useMutation(trpc.session.abort.mutationOptions());
  const running = isRunning(status);
  const empty = text.trim() === "";

  const send = () => {
    if (empty || prompt.isPending) return;
    const sent = text;
    const model = choice.selected;
    prompt.mutate(
      { sessionId: session.id, parts: [{ type: "text", text: sent }], ...(model ? { model } : {}) },
      {
        // Only what was sent is cleared: anything typed meanwhile stays.
        onSuccess: () => setText((current) => (current === sent ? "" : current)),
      },
    );
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    send();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!isSendKey(event)) return;
    event.preventDefault();
    send();
  };

  return (
    <div className="sticky bottom-0 z-10 -mx-2 space-y-2 bg-gradient-to-t from-zinc-50 from-70% to-transparent px-2 pt-4 pb-4" data-testid="composer">
      <RetryBanner status={status} />
      <form
        onSubmit={onSubmit}
        aria-label="Send a message"
        className="rounded-2xl border border-zinc-200 bg-white shadow-sm focus-within:border-indigo-300 focus-within:ring-2 focus-within:ring-indigo-100"
      >
        <label htmlFor={inputId} className="sr-only">
          Message
        </label>
        <textarea
          id={inputId}
          data-testid="composer-input"
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          aria-keyshortcuts="/"
          rows={2}
          placeholder={running ? "The agent is working — a message sent now is queued and answered next" : "Ask the agent… (Enter to send, Shift+Enter for a new line; start with @explore or @general to hand a job to a subagent)"}
          className="block max-h-72 min-h-16 w-full resize-none rounded-t-2xl border-0 bg-transparent px-4 pt-3 pb-1 text-[15px] text-zinc-900 [field-sizing:content] placeholder:text-zinc-400 focus:ring-0 focus:outline-none"
        />
        <div className="flex items-center gap-2 px-3 pb-2.5">
          <ModelPicker choice={choice} />
          <span className="ml-auto" />
          {running ? (
            <Button
              size="sm"
              variant="secondary"
              data-testid="stop-button"
              onClick={() => abort.mutate({ sessionId: session.id })}
              disabled={abort.isPending}
              className="text-red-700"
            >
              {abort.isPending ? <Spinner className="size-3.5" /> : <span className="size-2.5 rounded-[2px] bg-current" aria-hidden="true" />}
              Stop
            </Button>
          ) : null}
          <Button type="submit" size="sm" variant="primary" data-testid="send-button" disabled={empty || prompt.isPending}>
            {prompt.isPending ? <Spinner className="size-3.5" /> : null}
            Send
          </Button>
        </div>
      </form>
      {prompt.error ? (
        <p role="alert" data-testid="composer-error" className="rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          <span className="font-semibold">The message was not sent: </span>
          {requestErrorMessage(prompt.error)}
        </p>
      ) : null}
      {abort.error ? (
        <p role="alert" data-testid="stop-error" className="rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          <span className="font-semibold">Could not stop the agent: </span>
          {requestErrorMessage(abort.error)}
        </p>
      ) : null}
    </div>
  );
}
