"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { Icon, type IconName } from "@/components/parts/icons";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ErrorNotice, Spinner, errorMessage } from "@/components/ui/feedback";
import { type PermissionRequest, usePermissionRequests } from "./use-permission-requests";

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

function kindOf(permission: string) {
  return KINDS[permission] ?? { label: `Use “${permission}”`, icon: "wrench" as const, what: "Pattern" };
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

/**
 * The open session's pending permission questions, one card each: what the
 * agent wants to do, the command or paths, the tool call it belongs to, and the answers
 * "Allow once", "Always allow" (naming the patterns that will be remembered) and
 * "Reject" (with optional feedback the model receives). Answered from any tab, a card
 * disappears everywhere.
 */
export function PermissionPrompt({ sessionId }: { sessionId: string }) {
  const { requests, error, forget } = usePermissionRequests(sessionId);
  const [notices, setNotices] = useState<{ id: string; message: string }[]>([]);

  if (requests.length === 0 && notices.length === 0 && !error) return null;
  return (
    <section aria-label="Permission requests" data-testid="permission-prompt" className="space-y-3">
      {error ? <ErrorNotice title="Could not load the pending permission requests">{errorMessage(error)}</ErrorNotice> : null}
      {notices.map((notice) => (
        <div key={notice.id} role="alert" data-testid="permission-reply-error" className="flex items-start gap-3 rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          <Icon name="alert" className="mt-0.5 size-4 text-amber-500" />
          <p className="min-w-0 flex-1">{notice.message}</p>
          <button
            type="button"
            aria-label="Dismiss"
            className="rounded p-0.5 text-amber-600 hover:bg-amber-100 hover:text-amber-800"
            onClick={() => setNotices((list) => list.filter((n) => n.id !== notice.id))}
          >
            <Icon name="x" className="size-4" />
          </button>
        </div>
      ))}
      {requests.map((request) => (
        <PermissionCard
          key={request.id}
          request={request}
          onAnswered={() => forget(request.id)}
          onGone={(message) => {
            forget(request.id);
            setNotices((list) => [...list.filter((n) => n.id !== request.id), { id: request.id, message }]);
          }}
        />
      ))}
    </section>
  );
}

function PermissionCard({
  request,
  onAnswered,
  onGone,
}: {
  request: PermissionRequest;
  onAnswered: () => void;
  onGone: (message: string) => void;
}) {
  const trpc = useTRPC();
  const headingId = useId();
  const feedbackId = useId();
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
  const answer = (value: Reply) =>
    reply.mutate({ requestId: request.id, reply: value, ...(value === "reject" && feedback.trim() ? { feedback: feedback.trim() } : {}) });
  const busy = reply.isPending;

  return (
    <article
      aria-labelledby={headingId}
      data-testid="permission-request"
      data-permission={request.permission}
      data-request-id={request.id}
      className="overflow-hidden rounded-xl border border-amber-300 bg-white shadow-sm ring-4 ring-amber-100"
    >
      <header className="flex items-center gap-2.5 border-b border-amber-100 bg-amber-50/70 px-4 py-2.5">
        <span className="grid size-7 shrink-0 place-items-center rounded-lg bg-amber-100 text-amber-700">
          <Icon name={kind.icon} className="size-4" />
        </span>
        <h3 id={headingId} className="min-w-0 flex-1 text-sm font-semibold text-zinc-900">
          The agent asks to {kind.label.charAt(0).toLowerCase() + kind.label.slice(1)}
        </h3>
        <Badge tone="amber" data-testid="permission-kind">
          {request.permission}
        </Badge>
      </header>
      <div className="space-y-3 px-4 py-3">
        {description ? <p className="text-sm text-zinc-600">{description}</p> : null}
        <div className="space-y-1">
          <h4 className="text-[11px] font-semibold tracking-wider text-zinc-400 uppercase">{kind.what}</h4>
          <ul data-testid="permission-patterns" className="space-y-1">
            {request.patterns.map((pattern) => (
              <li key={pattern}>
                <code className="block rounded-lg bg-zinc-900 px-3 py-1.5 font-mono text-[12.5px] break-all whitespace-pre-wrap text-zinc-100">{pattern}</code>
              </li>
            ))}
          </ul>
        </div>
        <Details request={request} />
        {request.tool ? <ToolLink tool={request.tool} /> : null}

        {rejecting ? (
          <form
            className="space-y-2"
            onSubmit={(event) => {
              event.preventDefault();
              answer("reject");
            }}
          >
            <label htmlFor={feedbackId} className="block text-sm font-medium text-zinc-700">
              Tell the agent why, or what to do instead <span className="font-normal text-zinc-400">(optional)</span>
            </label>
            <textarea
              id={feedbackId}
              autoFocus
              rows={2}
              maxLength={10_000}
              value={feedback}
              onChange={(event) => setFeedback(event.target.value)}
              placeholder="Without feedback the agent stops and waits for your next message."
              className="block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600 focus:outline-none"
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
            <div role="group" aria-label="Answer" className="flex flex-wrap gap-2">
              <Button size="sm" variant="primary" disabled={busy} onClick={() => answer("once")}>
                {busy && reply.variables?.reply === "once" ? <Spinner className="size-3.5" /> : null}
                Allow once
              </Button>
              {request.always.length > 0 ? (
                <Button size="sm" disabled={busy} onClick={() => answer("always")} aria-describedby={`${headingId}-always`}>
                  {busy && reply.variables?.reply === "always" ? <Spinner className="size-3.5" /> : null}
                  Always allow
                </Button>
              ) : null}
              <Button size="sm" variant="ghost" className="text-red-600 hover:bg-red-50 hover:text-red-700" disabled={busy} onClick={() => setRejecting(true)}>
                Reject…
              </Button>
            </div>
            {request.always.length > 0 ? (
              <p id={`${headingId}-always`} data-testid="permission-always" className="text-xs text-zinc-500">
                “Always allow” remembers{" "}
                {request.always.map((pattern, i) => (
                  <span key={pattern}>
                    {i > 0 ? ", " : ""}
                    <code className="rounded bg-zinc-100 px-1 py-0.5 font-mono text-[11.5px] text-zinc-700">{pattern}</code>
                  </span>
                ))}{" "}
                for <span className="font-mono">{request.permission}</span> in this project, for the whole team (admins can revoke it on the{" "}
                <Link href="/team/approvals" className="font-medium text-indigo-600 hover:text-indigo-800">
                  Approvals page
                </Link>
                ).
              </p>
            ) : (
              <p data-testid="permission-always" className="text-xs text-zinc-500">
                {request.mustAsk
                  ? `This cannot be allowed always: ${text(request.metadata.unparsed) ?? "it could not be fully checked"}, so it asks every time.`
                  : "This cannot be allowed always: it asks every time."}
              </p>
            )}
          </div>
        )}
        {reply.error && !isGone(reply.error) ? (
          <p role="alert" data-testid="permission-reply-error" className="text-sm text-red-600">
            Could not answer: {errorMessage(reply.error)}
          </p>
        ) : null}
      </div>
    </article>
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
    <p data-testid="permission-tool" className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-500">
      <span>
        For the tool call <span className="font-mono">{tool.callId}</span>
      </span>
      <button type="button" onClick={show} className="font-medium text-indigo-600 hover:text-indigo-800">
        Show in the conversation
      </button>
    </p>
  );
}
