"use client";

import Link from "next/link";
import { type ReactNode, useId } from "react";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";
import { ANSWER_KEYS, type KeyAnswer } from "./keys";
import type { PermissionRequest } from "./use-permission-requests";

/**
 * The answers of a permission card: Allow once, Always allow (with what it remembers),
 * Reject, Reject with feedback… and its form, and the keys that answer the oldest question.
 */

export type Reply = "once" | "always" | "reject";

/** Whether an answer is on its way, and which. */
export interface Pending {
  busy: boolean;
  reply: Reply | undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value : undefined;
}

interface AnswersProps {
  request: PermissionRequest;
  oldest: boolean;
  offersAlways: boolean;
  alwaysId: string;
  pending: Pending;
  answer: (reply: Reply) => void;
  onRejecting: () => void;
}

export function Answers({ request, oldest, offersAlways, alwaysId, pending, answer, onRejecting }: AnswersProps) {
  const { busy } = pending;
  return (
    <div className="flex flex-col gap-2">
      <div role="group" aria-label="Answer" data-answers className="flex flex-wrap gap-2">
        <AnswerButton answer="once" keys={oldest} variant="primary" busy={busy} pending={pending.reply} onClick={() => answer("once")}>
          Allow once
        </AnswerButton>
        {offersAlways ? (
          <AnswerButton answer="always" keys={oldest} busy={busy} pending={pending.reply} onClick={() => answer("always")} describedBy={alwaysId}>
            Always allow
          </AnswerButton>
        ) : null}
        <AnswerButton answer="reject" keys={oldest} variant="ghost" className="text-red-700 hover:bg-red-50 hover:text-red-800" busy={busy} pending={pending.reply} onClick={() => answer("reject")}>
          Reject
        </AnswerButton>
        <Button size="sm" variant="ghost" className="text-zinc-600" disabled={busy} onClick={onRejecting}>
          Reject with feedback…
        </Button>
      </div>
      {oldest ? (
        <p data-testid="permission-keys" className="text-xs text-zinc-600">
          Keys, when you are not typing (or the message box is empty): <Kbd>Y</Kbd> or <Kbd>Enter</Kbd> allows once
          {offersAlways ? <>, <Kbd>A</Kbd> always allows</> : null}, <Kbd>N</Kbd> rejects; <Kbd>Esc</Kbd> comes here, and again rejects.
        </p>
      ) : null}
      {offersAlways ? <AlwaysNote request={request} id={alwaysId} /> : <NeverAlways request={request} />}
    </div>
  );
}

/** What "Always allow" remembers, and where admins revoke it. */
function AlwaysNote({ request, id }: { request: PermissionRequest; id: string }) {
  return (
    <p id={id} data-testid="permission-always" className="text-xs text-zinc-600">
      “Always allow” remembers{" "}
      {request.always.map((pattern, i) => (
        <span key={pattern}>
          {i > 0 ? ", " : ""}
          <code className="rounded bg-zinc-100 px-1 py-0.5 font-mono text-[11.5px] text-zinc-700">{pattern}</code>
        </span>
      ))}{" "}
      for <span className="font-mono">{request.permission}</span> in this project, for the whole team (admins can revoke it on the{" "}
      <Link href="/team/approvals" className="font-medium text-indigo-700 hover:text-indigo-900">
        Approvals page
      </Link>
      ).
    </p>
  );
}

/** Why this question cannot be always allowed. */
function NeverAlways({ request }: { request: PermissionRequest }) {
  return (
    <p data-testid="permission-always" className="text-xs text-zinc-600">
      {request.mustAsk
        ? `This cannot be allowed always: ${text(request.metadata.unparsed) ?? "it could not be fully checked"}, so it asks every time.`
        : request.policy && request.always.length > 0
          ? "The team's permission policy asks this every time: only team owners and admins can always allow it."
          : "This cannot be allowed always: it asks every time."}
    </p>
  );
}

interface RejectFormProps {
  feedback: string;
  setFeedback: (value: string) => void;
  pending: Pending;
  onReject: () => void;
  onBack: () => void;
}

/** Reject, with feedback for the agent when one is written. */
export function RejectForm({ feedback, setFeedback, pending, onReject, onBack }: RejectFormProps) {
  const feedbackId = useId();
  return (
    <form
      className="space-y-2"
      onSubmit={(event) => {
        event.preventDefault();
        onReject();
      }}
    >
      <label htmlFor={feedbackId} className="block text-sm font-medium text-zinc-700">
        Tell the agent why, or what to do instead <span className="font-normal text-zinc-500">(optional)</span>
      </label>
      <textarea
        id={feedbackId}
        autoFocus
        rows={2}
        maxLength={10_000}
        value={feedback}
        onChange={(event) => setFeedback(event.target.value)}
        placeholder="Without feedback the agent stops and waits for your next message."
        className="block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-500 focus:ring-2 focus:ring-indigo-600 focus:outline-none"
      />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm" variant="danger" disabled={pending.busy}>
          {pending.busy && pending.reply === "reject" ? <Spinner className="size-3.5" /> : null}
          {feedback.trim() ? "Reject with feedback" : "Reject"}
        </Button>
        <Button size="sm" variant="ghost" disabled={pending.busy} onClick={onBack}>
          Back
        </Button>
      </div>
    </form>
  );
}

function Kbd({ children }: { children: ReactNode }) {
  return <kbd className="rounded border border-zinc-300 bg-zinc-50 px-1 font-mono text-[11px] text-zinc-700">{children}</kbd>;
}

/** An answer's button; on the oldest question it shows its key (and announces it as its shortcut). */
function AnswerButton({
  answer,
  keys,
  variant = "secondary",
  className = "",
  busy,
  pending,
  onClick,
  describedBy,
  children,
}: {
  answer: KeyAnswer;
  keys: boolean;
  variant?: "primary" | "secondary" | "ghost";
  className?: string;
  busy: boolean;
  pending: Reply | undefined;
  onClick: () => void;
  describedBy?: string;
  children: ReactNode;
}) {
  const key = ANSWER_KEYS[answer];
  return (
    <Button
      size="sm"
      variant={variant}
      className={className}
      disabled={busy}
      onClick={onClick}
      aria-describedby={describedBy}
      aria-keyshortcuts={keys ? key.shortcuts : undefined}
      data-answer={answer}
    >
      {busy && pending === answer ? <Spinner className="size-3.5" /> : null}
      {children}
      {keys ? (
        <kbd aria-hidden="true" data-testid="answer-key" className="ml-0.5 rounded border border-current/30 px-1 font-mono text-[11px] leading-4 opacity-80">
          {key.label}
        </kbd>
      ) : null}
    </Button>
  );
}

