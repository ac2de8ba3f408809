"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { type ReactNode, useEffect, useEffectEvent, useId, useRef, useState } from "react";
import { Icon, type IconName } from "@/components/parts/icons";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Spinner, errorMessage } from "@/components/ui/feedback";
import { useMayBypassPolicy } from "./always";
import { ANSWER_KEYS, type KeyAnswer, offersAlways as canOfferAlways } from "./keys";
import { revealElement } from "./reveal";
import type { PermissionRequest } from "./use-permission-requests";

type Reply = "once" | "always" | "reject";

const KINDS: Record<string, { label: string; icon: IconName; what: string }> = {
  bash: { label: "Run a command", icon: "terminal", what: "Command" },
  edit: { label: "Edit a file", icon: "pencil", what: "File" },
  write: { label: "Write a file", icon: "pencil", what: "File" },
  read: { label: "Read a file", icon: "file", what: "File" },
  list: { label: "List a directory", icon: "list", what: "Directory" },
  glob: { label: "Find files", icon: "search", what: "Pattern" },
  grep: { label: "Search the files", icon: "search", what: "Pattern" },
  external_directory: { label: "Use a path outside the project", icon: "globe", what: "Directory" },
  doom_loop: { label: "Repeat the same call again", icon: "retry", what: "Tool" },
};

export function kindOf(permission: string) {
  return KINDS[permission] ?? { label: `Use “${permission}”`, icon: "wrench" as const, what: "Pattern" };
}

/** "The agent asks to run a command" */
export function askedTo(permission: string): string {
  const label = kindOf(permission).label;
  return `The agent asks to ${label.charAt(0).toLowerCase()}${label.slice(1)}`;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value : undefined;
}

/** A reply the server refused: the request was answered elsewhere, or no longer exists. */
function isGone(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("data" in error)) return false;
  const data: unknown = error.data;
  if (typeof data !== "object" || data === null || !("code" in data)) return false;
  return data.code === "CONFLICT" || data.code === "NOT_FOUND";
}

/** What the session's key handler (PermissionPrompt) needs of the oldest question's card. */
export interface CardHandle {
  element: HTMLElement;
  /** False while the card takes no single keys (its feedback form is open, or an answer is on its way). */
  keys: boolean;
  answer: (reply: KeyAnswer) => void;
}

export interface PermissionCardProps {
  request: PermissionRequest;
  /** The oldest pending question: the one single keys answer (its buttons show them). */
  oldest: boolean;
  /** Shown inside its tool call (else below the conversation, with a link to the call). */
  inline: boolean;
  onAnswered: () => void;
  onGone: (message: string) => void;
  /** Set while this card is to be brought into view: each new number is one wish. */
  revealSeq: number | undefined;
  /** Whether the wish `seq` is still to be granted (true once: a re-mounted card does not scroll again). */
  claimReveal: (seq: number) => boolean;
  /** Hands the oldest question's card to the key handler while it is mounted (null when it goes). */
  bind: (requestId: string, handle: CardHandle | null) => void;
}

/**
 * One pending permission question: what the agent wants to do, the command or paths, and
 * the answers "Allow once", "Always allow" (naming the patterns that will be remembered),
 * "Reject" and "Reject with feedback…" (the model receives the feedback). The oldest
 * question shows the single keys that answer it (handled by PermissionPrompt).
 */
export function PermissionCard({ request, oldest, inline, onAnswered, onGone, revealSeq, claimReveal, bind }: PermissionCardProps) {
  const trpc = useTRPC();
  const headingId = useId();
  const feedbackId = useId();
  const card = useRef<HTMLElement>(null);
  const [rejecting, setRejecting] = useState(false);
  const [feedback, setFeedback] = useState("");
  const reply = useMutation(
    trpc.permission.reply.mutationOptions({
      onSuccess: onAnswered,
      onError: (error) => {
        if (isGone(error)) onGone(`Could not answer “${kindOf(request.permission).label.toLowerCase()}” (${request.patterns.join(", ")}): ${error.message}.`);
      },
    }),
  );
  const kind = kindOf(request.permission);
  const description = text(request.metadata.description);
  const offersAlways = canOfferAlways(request, useMayBypassPolicy());
  const busy = reply.isPending;
  const answer = (value: Reply, withFeedback = false) =>
    reply.mutate({ requestId: request.id, reply: value, ...(withFeedback && value === "reject" && feedback.trim() ? { feedback: feedback.trim() } : {}) });

  // Brought into view when asked to, once the list has laid the card out (two frames:
  // its row is measured, then placed).
  const reveal = useEffectEvent((element: HTMLElement, seq: number) => {
    if (claimReveal(seq)) revealElement(element);
  });
  useEffect(() => {
    const element = card.current;
    if (revealSeq === undefined || !element) return;
    let second = 0;
    const first = requestAnimationFrame(() => {
      second = requestAnimationFrame(() => reveal(element, revealSeq));
    });
    return () => {
      cancelAnimationFrame(first);
      cancelAnimationFrame(second);
    };
  }, [revealSeq]);

  // The key handler answers through the card, so the answer shows here (busy, errors).
  const keys = !rejecting && !busy;
  const latestAnswer = useRef(answer);
  useEffect(() => {
    latestAnswer.current = answer;
  });
  const id = request.id;
  useEffect(() => {
    const element = card.current;
    if (!oldest || !element) return;
    bind(id, { element, keys, answer: (given) => latestAnswer.current(given) });
    return () => bind(id, null);
  }, [oldest, keys, bind, id]);

  return (
    <article
      ref={card}
      aria-labelledby={headingId}
      data-testid="permission-request"
      data-permission={request.permission}
      data-request-id={request.id}
      data-oldest={oldest ? "true" : undefined}
      data-inline={inline ? "true" : undefined}
      className="overflow-hidden rounded-xl border border-amber-300 bg-white shadow-sm ring-4 ring-amber-100"
    >
      <header className="flex items-center gap-2.5 border-b border-amber-100 bg-amber-50/70 px-4 py-2.5">
        <span className="grid size-7 shrink-0 place-items-center rounded-lg bg-amber-100 text-amber-700">
          <Icon name={kind.icon} className="size-4" />
        </span>
        <h3 id={headingId} className="min-w-0 flex-1 text-sm font-semibold text-zinc-900">
          {askedTo(request.permission)}
        </h3>
        <Badge tone="amber" data-testid="permission-kind">
          {request.permission}
        </Badge>
      </header>
      <div className="space-y-3 px-4 py-3">
        {description ? <p className="text-sm text-zinc-600">{description}</p> : null}
        <div className="space-y-1">
          <h4 className="text-[11px] font-semibold tracking-wider text-zinc-500 uppercase">{kind.what}</h4>
          <ul data-testid="permission-patterns" className="space-y-1">
            {request.patterns.map((pattern) => (
              <li key={pattern}>
                <code className="block rounded-lg bg-zinc-900 px-3 py-1.5 font-mono text-[12.5px] break-all whitespace-pre-wrap text-zinc-100">{pattern}</code>
              </li>
            ))}
          </ul>
        </div>
        <Details request={request} />
        {request.tool && !inline ? <ToolLink tool={request.tool} /> : null}

        {rejecting ? (
          <form
            className="space-y-2"
            onSubmit={(event) => {
              event.preventDefault();
              answer("reject", true);
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
              <Button type="submit" size="sm" variant="danger" disabled={busy}>
                {busy && reply.variables?.reply === "reject" ? <Spinner className="size-3.5" /> : null}
                {feedback.trim() ? "Reject with feedback" : "Reject"}
              </Button>
              <Button size="sm" variant="ghost" disabled={busy} onClick={() => setRejecting(false)}>
                Back
              </Button>
            </div>
          </form>
        ) : (
          <div className="flex flex-col gap-2">
            <div role="group" aria-label="Answer" data-answers className="flex flex-wrap gap-2">
              <AnswerButton answer="once" keys={oldest} variant="primary" busy={busy} pending={reply.variables?.reply} onClick={() => answer("once")}>
                Allow once
              </AnswerButton>
              {offersAlways ? (
                <AnswerButton answer="always" keys={oldest} busy={busy} pending={reply.variables?.reply} onClick={() => answer("always")} describedBy={`${headingId}-always`}>
                  Always allow
                </AnswerButton>
              ) : null}
              <AnswerButton answer="reject" keys={oldest} variant="ghost" className="text-red-700 hover:bg-red-50 hover:text-red-800" busy={busy} pending={reply.variables?.reply} onClick={() => answer("reject")}>
                Reject
              </AnswerButton>
              <Button size="sm" variant="ghost" className="text-zinc-600" disabled={busy} onClick={() => setRejecting(true)}>
                Reject with feedback…
              </Button>
            </div>
            {oldest ? (
              <p data-testid="permission-keys" className="text-xs text-zinc-600">
                Keys, when you are not typing: <Kbd>Y</Kbd> or <Kbd>Enter</Kbd> allows once{offersAlways ? <>, <Kbd>A</Kbd> always allows</> : null}, <Kbd>N</Kbd> rejects.
              </p>
            ) : null}
            {offersAlways ? (
              <p id={`${headingId}-always`} data-testid="permission-always" className="text-xs text-zinc-600">
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
            ) : (
              <p data-testid="permission-always" className="text-xs text-zinc-600">
                {request.mustAsk
                  ? `This cannot be allowed always: ${text(request.metadata.unparsed) ?? "it could not be fully checked"}, so it asks every time.`
                  : request.policy && request.always.length > 0
                    ? "The team's permission policy asks this every time: only team owners and admins can always allow it."
                    : "This cannot be allowed always: it asks every time."}
              </p>
            )}
          </div>
        )}
        {reply.error && !isGone(reply.error) ? (
          <p role="alert" data-testid="permission-reply-error" className="text-sm text-red-700">
            Could not answer: {errorMessage(reply.error)}
          </p>
        ) : null}
      </div>
    </article>
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

/** What else the tool told about the request (a doom loop's repeated input, an outside path's target). */
function Details({ request }: { request: PermissionRequest }) {
  const meta = request.metadata;
  if (request.permission === "doom_loop") {
    const kind = text(meta.kind);
    return (
      <p className="text-sm text-zinc-600">
        The agent made this <span className="font-mono">{text(meta.tool) ?? "tool"}</span> call several times in a row with the same input
        {kind ? ` (${kind})` : ""}. Allowing it lets the call run once more.
        {meta.input !== undefined ? (
          <code className="mt-1.5 block rounded-lg bg-zinc-50 px-3 py-1.5 font-mono text-[12px] break-all whitespace-pre-wrap text-zinc-700 ring-1 ring-zinc-200 ring-inset">
            {JSON.stringify(meta.input, null, 2)}
          </code>
        ) : null}
      </p>
    );
  }
  const filepath = text(meta.filepath);
  if (filepath && !request.patterns.includes(filepath)) {
    return (
      <p className="text-sm text-zinc-600">
        Path: <span className="font-mono break-all">{filepath}</span>
      </p>
    );
  }
  return null;
}

/** The tool call the request belongs to, with a link that scrolls to its message in the conversation. */
function ToolLink({ tool }: { tool: { messageId: string; callId: string } }) {
  const show = () => {
    const element = document.querySelector(`[data-message-id="${CSS.escape(tool.messageId)}"]`);
    element?.scrollIntoView({ behavior: "smooth", block: "center" });
  };
  return (
    <p data-testid="permission-tool" className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-600">
      <span>
        For the tool call <span className="font-mono">{tool.callId}</span>
      </span>
      <button type="button" onClick={show} className="font-medium text-indigo-700 hover:text-indigo-900">
        Show in the conversation
      </button>
    </p>
  );
}
