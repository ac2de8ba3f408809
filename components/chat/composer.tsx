"use client";

import { useMutation } from "@tanstack/react-query";
import { type ClipboardEvent, type DragEvent, type FormEvent, type KeyboardEvent, useLayoutEffect, useRef, useState } from "react";
import type { SessionInfo } from "@/components/session/types";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";
import { MESSAGE_BOX_ID } from "@/components/ui/keyboard";
import { type ActiveMention, insertMention, mentionedPaths } from "@/lib/mentions";
import { AttachButton, AttachmentChips, useAttachments } from "./attachments";
import { useDraftOffers } from "./draft";
import { MentionMenu, useMentionCompletion } from "./mention-menu";
import { ModelPicker, type ModelRef, modelKey, useModelChoice } from "./model-picker";
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

/** Whether a drag carries files (not text or a link). */
function carriesFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer.types).includes("Files");
}

/**
 * Where the user talks to the agent: the message box, attached files (picked, pasted or
 * dropped), `@` mentions of project files with completion, the model picker, Send and —
 * while the agent works — Stop. A message sent while the agent works is queued by the
 * server. A message that is refused keeps everything: its text, files and mentions.
 */
export function Composer({ session, status, messages }: { session: SessionInfo; status: Status; messages: readonly WithParts[] }) {
  const trpc = useTRPC();
  // The page's message box: "/" and the skip link focus it (components/ui/keyboard.ts).
  const inputId = MESSAGE_BOX_ID;
  const box = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useState("");
  const [caret, setCaret] = useState(0);
  // Where to put the caret after the next render (a mention inserted, a prompt offered).
  const nextCaret = useRef<number | undefined>(undefined);
  const [chosen, setChosen] = useState<readonly string[]>([]);
  const [dragging, setDragging] = useState(false);
  const attachments = useAttachments();
  const choice = useModelChoice(session.id, lastUserModel(messages), session.model);
  const prompt = useMutation(trpc.session.prompt.mutationOptions());
  const abort = useMutation(trpc.session.abort.mutationOptions());
  const running = isRunning(status);
  const empty = text.trim() === "" && attachments.items.length === 0;
  const selected = choice.selected;
  const seesImages = selected ? (choice.list?.models.find((m) => modelKey(m) === modelKey(selected))?.images ?? true) : true;

  const edit = (value: string, at: number) => {
    setText(value);
    setCaret(at);
    nextCaret.current = at;
  };
  useLayoutEffect(() => {
    const at = nextCaret.current;
    if (at === undefined || !box.current) return;
    nextCaret.current = undefined;
    box.current.focus();
    box.current.setSelectionRange(at, at);
  });
  const completion = useMentionCompletion({
    sessionId: session.id,
    text,
    caret,
    onChoose: (mention: ActiveMention, file: string) => {
      const next = insertMention(text, mention, caret, file);
      setChosen((current) => (current.includes(file) ? current : [...current, file]));
      edit(next.text, next.caret);
    },
  });
  useDraftOffers(session.id, (offered) => edit(offered, offered.length));

  const send = () => {
    if (empty || prompt.isPending) return;
    const sent = text;
    const files = attachments.items;
    const mentions = mentionedPaths(sent, chosen);
    const model = choice.selected;
    prompt.mutate(
      {
        sessionId: session.id,
        parts: [
          ...(sent.trim() === "" ? [] : [{ type: "text" as const, text: sent }]),
          ...files.map((file) => ({ type: "file" as const, mime: file.mime, filename: file.name, url: file.url })),
          ...mentions.map((path) => ({ type: "mention" as const, path })),
        ],
        ...(model ? { model } : {}),
      },
      {
        // Only what was sent is cleared: anything typed or attached meanwhile stays.
        onSuccess: () => {
          setText((current) => (current === sent ? "" : current));
          attachments.clear(files.map((file) => file.id));
          setChosen((current) => current.filter((path) => !mentions.includes(path)));
        },
      },
    );
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    send();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (completion.onKeyDown(event)) return;
    if (!isSendKey(event)) return;
    event.preventDefault();
    send();
  };
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(event.clipboardData.files);
    if (files.length === 0) return;
    // A copied image comes as a file; copied text (even with a file beside it) is pasted as usual.
    if (!event.clipboardData.types.includes("text/plain")) event.preventDefault();
    void attachments.add(files);
  };
  const onDragOver = (event: DragEvent) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    setDragging(true);
  };
  const onDragLeave = (event: DragEvent<HTMLFormElement>) => {
    if (event.relatedTarget instanceof Node && event.currentTarget.contains(event.relatedTarget)) return;
    setDragging(false);
  };
  const onDrop = (event: DragEvent) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    setDragging(false);
    void attachments.add(Array.from(event.dataTransfer.files));
  };

  return (
    <div className="sticky bottom-0 z-10 -mx-2 space-y-2 bg-gradient-to-t from-zinc-50 from-70% to-transparent px-2 pt-4 pb-4" data-testid="composer">
      <RetryBanner status={status} />
      <form
        onSubmit={onSubmit}
        onDragOver={onDragOver}
        onDragLeave={onDragLeave}
        onDrop={onDrop}
        aria-label="Send a message"
        data-dragging={dragging || undefined}
        className={`relative rounded-2xl border bg-white shadow-sm focus-within:border-indigo-300 focus-within:ring-2 focus-within:ring-indigo-100 ${dragging ? "border-indigo-400 ring-2 ring-indigo-200" : "border-zinc-200"}`}
      >
        <MentionMenu completion={completion} />
        {dragging ? (
          <div aria-hidden="true" className="pointer-events-none absolute inset-0 z-10 grid place-items-center rounded-2xl bg-indigo-50/90 text-sm font-medium text-indigo-800">
            Drop files to attach them
          </div>
        ) : null}
        <AttachmentChips items={attachments.items} onRemove={attachments.remove} modelSeesImages={seesImages} />
        <label htmlFor={inputId} className="sr-only">
          Message
        </label>
        <textarea
          ref={box}
          id={inputId}
          data-testid="composer-input"
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            setCaret(event.target.selectionStart);
          }}
          onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          aria-keyshortcuts="/"
          rows={2}
          aria-autocomplete="list"
          aria-controls={completion.files.length > 0 ? completion.listId : undefined}
          aria-activedescendant={completion.files.length > 0 ? completion.optionId(completion.active) : undefined}
          placeholder={
            running
              ? "The agent is working — a message sent now is queued and answered next"
              : "Ask the agent… (Enter to send, Shift+Enter for a new line; @ mentions a file; start with @explore or @general to hand a job to a subagent)"
          }
          className="block max-h-72 min-h-16 w-full resize-none rounded-t-2xl border-0 bg-transparent px-4 pt-3 pb-1 text-[15px] text-zinc-900 [field-sizing:content] placeholder:text-zinc-400 focus:ring-0 focus:outline-none"
        />
        <div className="flex items-center gap-2 px-3 pb-2.5">
          <AttachButton onFiles={(files) => void attachments.add(files)} />
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
      {attachments.error ? (
        <p role="alert" data-testid="attach-error" className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          <span className="font-semibold">Not attached: </span>
          {attachments.error}
        </p>
      ) : null}
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
