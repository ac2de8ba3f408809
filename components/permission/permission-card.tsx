"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect, useEffectEvent, useId, useRef, useState } from "react";
import { Icon, type IconName } from "@/components/parts/icons";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { errorMessage } from "@/components/ui/feedback";
import { useMayBypassPolicy } from "./always";
import { Answers, RejectForm, type Reply } from "./answers";
import { type KeyAnswer, offersAlways as canOfferAlways } from "./keys";
import { revealElement } from "./reveal";
import type { PermissionRequest } from "./use-permission-requests";

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

/** The card's reply, its being brought into view when asked, and its handle for the key handler (the oldest question's). */
function useCardWiring({ request, oldest, onAnswered, onGone, revealSeq, claimReveal, bind }: PermissionCardProps, rejecting: boolean, feedback: string) {
  const trpc = useTRPC();
  const card = useRef<HTMLElement>(null);
  const reply = useMutation(
    trpc.permission.reply.mutationOptions({
      onSuccess: onAnswered,
      onError: (error) => {
        if (isGone(error)) onGone(`Could not answer “${kindOf(request.permission).label.toLowerCase()}” (${request.patterns.join(", ")}): ${error.message}.`);
      },
    }),
  );
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
  const keys = !rejecting && !reply.isPending;
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
  return { card, reply, answer };
}

/**
 * One pending permission question: what the agent wants to do, the command or paths, and
 * the answers "Allow once", "Always allow" (naming the patterns that will be remembered),
 * "Reject" and "Reject with feedback…" (the model receives the feedback). The oldest
 * question shows the single keys that answer it (handled by PermissionPrompt).
 */
export function PermissionCard(props: PermissionCardProps) {
  const { request, oldest, inline } = props;
  const headingId = useId();
  const [rejecting, setRejecting] = useState(false);
  const [feedback, setFeedback] = useState("");
  const { card, reply, answer } = useCardWiring(props, rejecting, feedback);
  const kind = kindOf(request.permission);
  const description = text(request.metadata.description);
  const offersAlways = canOfferAlways(request, useMayBypassPolicy());
  const pending = { busy: reply.isPending, reply: reply.variables?.reply };
  return (
    <article
      ref={card}
      aria-labelledby={headingId}
      data-testid="permission-request"
      data-permission={request.permission}
      data-request-id={request.id}
      data-oldest={oldest ? "true" : undefined}
      data-inline={inline ? "true" : undefined}
      // Escape brings the focus here (not a Tab stop of its own: its buttons are).
      tabIndex={-1}
      className="overflow-hidden rounded-xl border border-amber-300 bg-white shadow-sm ring-4 ring-amber-100 focus:outline-2 focus:outline-offset-2 focus:outline-amber-600"
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
        <Patterns what={kind.what} patterns={request.patterns} />
        <Details request={request} />
        {request.tool && !inline ? <ToolLink tool={request.tool} /> : null}
        {rejecting ? (
          <RejectForm feedback={feedback} setFeedback={setFeedback} pending={pending} onReject={() => answer("reject", true)} onBack={() => setRejecting(false)} />
        ) : (
          <Answers request={request} oldest={oldest} offersAlways={offersAlways} alwaysId={`${headingId}-always`} pending={pending} answer={answer} onRejecting={() => setRejecting(true)} />
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

/** The command, paths or patterns asked for. */
function Patterns({ what, patterns }: { what: string; patterns: string[] }) {
  return (
    <div className="space-y-1">
      <h4 className="text-[11px] font-semibold tracking-wider text-zinc-500 uppercase">{what}</h4>
      <ul data-testid="permission-patterns" className="space-y-1">
        {patterns.map((pattern) => (
          <li key={pattern}>
            <code className="block rounded-lg bg-zinc-900 px-3 py-1.5 font-mono text-[12.5px] break-all whitespace-pre-wrap text-zinc-100">{pattern}</code>
          </li>
        ))}
      </ul>
    </div>
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
