"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { MessageView } from "@/components/chat/message-view";
import { shownMessages } from "@/components/chat/revert";
import { DiffSourceContext } from "@/components/chat/turn-diff";
import type { Status } from "@/components/chat/types";
import { SessionHrefProvider } from "@/components/parts/session-link";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState, ErrorNotice, Spinner } from "@/components/ui/feedback";
import { formatCost, formatTokens, totalTokens } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";
import { type SharePage, type SharedSession, shareHref } from "./types";
import { useShareLive } from "./use-share-live";

/**
 * A session seen through its share link: read-only (no control that changes anything),
 * live while it runs, older messages on demand, child sessions opened inside the share.
 * Rendered on the server first (app/share/[shareId]/page.tsx), so the first page of the
 * conversation is in the HTML.
 */
export function ShareViewer({ initial }: { initial: SharePage }) {
  const live = useShareLive(initial);
  const shareId = initial.share.id;
  const rootId = initial.root.id;
  const href = (sessionId: string) => shareHref(shareId, rootId, sessionId);

  if (live.revoked) {
    return (
      <Notice testId="share-revoked" title="This link was revoked">
        The owner stopped sharing this session. Ask them for a new link if you still need it.
      </Notice>
    );
  }
  if (live.deleted) {
    return (
      <Notice testId="share-deleted" title="This session was deleted">
        <Link href={href(rootId)} className="font-medium text-indigo-600 hover:text-indigo-800">
          Back to the shared session
        </Link>
      </Notice>
    );
  }

  const { snapshot, session } = live;
  // Messages a revert hides are not shown here either (they go with the session's next prompt).
  const shown = shownMessages(snapshot.messages, session.revert);
  const diffSource = { kind: "viewer" as const, shareId, sessionId: session.id === rootId ? undefined : session.id };
  return (
    <SessionHrefProvider value={href}>
      <DiffSourceContext value={diffSource}>
      <div className="space-y-8" data-testid="share-view" data-session-id={session.id}>
        <ShareHeader session={session} root={initial.root} status={snapshot.status} connected={live.connected} href={href} />
        {live.children.length > 0 ? (
          <section aria-labelledby="share-children-heading" className="rounded-2xl bg-white p-4 shadow-sm ring-1 ring-zinc-200">
            <h2 id="share-children-heading" className="text-sm font-semibold text-zinc-900">
              Child sessions <span className="font-normal text-zinc-400">{live.children.length}</span>
            </h2>
            <ul data-testid="share-children" className="mt-2 divide-y divide-zinc-100">
              {live.children.map((child) => (
                <li key={child.id} className="flex items-center gap-3 py-2 text-sm">
                  <span className="text-zinc-300" aria-hidden="true">
                    ↳
                  </span>
                  <Link href={href(child.id)} className="min-w-0 flex-1 truncate font-medium text-zinc-800 hover:text-indigo-600">
                    {child.title}
                  </Link>
                  <span className="hidden text-xs text-zinc-500 sm:inline">
                    <RelativeTime time={child.time.updated} />
                  </span>
                  <span className="font-mono text-xs text-zinc-600">{formatCost(child.cost)}</span>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {live.error ? <ErrorNotice title={live.error} /> : null}
        {snapshot.corrupt.length > 0 ? (
          <ErrorNotice title={`${snapshot.corrupt.length} stored ${snapshot.corrupt.length === 1 ? "row" : "rows"} of this session could not be read and ${snapshot.corrupt.length === 1 ? "is" : "are"} not shown`} />
        ) : null}
        <div className="space-y-6">
          {snapshot.hasOlder ? (
            <div className="flex justify-center">
              <Button size="sm" onClick={live.loadOlder} disabled={snapshot.loadingOlder}>
                {snapshot.loadingOlder ? <Spinner className="size-3.5" /> : null}
                Load older messages
              </Button>
            </div>
          ) : null}
          {shown.messages.length === 0 ? (
            <EmptyState title="No messages yet">This session has no conversation yet.</EmptyState>
          ) : (
            shown.messages.map((message) => <MessageView key={message.info.id} message={message} />)
          )}
          {shown.hidden > 0 ? (
            <p data-testid="share-reverted" className="text-center text-xs text-zinc-500">
              {shown.hidden} later {shown.hidden === 1 ? "message was" : "messages were"} reverted by the session&apos;s owner.
            </p>
          ) : null}
        </div>
      </div>
      </DiffSourceContext>
    </SessionHrefProvider>
  );
}

function ShareHeader({
  session,
  root,
  status,
  connected,
  href,
}: {
  session: SharedSession;
  root: SharedSession;
  status: Status;
  connected: boolean;
  href: (sessionId: string) => string;
}) {
  const isRoot = session.id === root.id;
  return (
    <header className="space-y-3">
      {isRoot ? null : (
        <nav aria-label="Breadcrumb" className="flex flex-wrap items-center gap-1.5 text-sm text-zinc-500">
          <Link href={href(root.id)} className="font-medium text-indigo-600 hover:text-indigo-800">
            {root.title}
          </Link>
          {session.parentId && session.parentId !== root.id ? (
            <>
              <span aria-hidden="true">/</span>
              <Link href={href(session.parentId)} className="hover:text-zinc-800">
                Parent session
              </Link>
            </>
          ) : null}
          <span aria-hidden="true">/</span>
          <span className="truncate text-zinc-700">{session.title}</span>
        </nav>
      )}
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <Badge tone="indigo">Shared session</Badge>
        <span className="text-zinc-500">Read-only</span>
        <span data-testid="share-connection" data-connected={connected ? "true" : "false"} className="inline-flex items-center gap-1.5 text-zinc-500">
          <span className={`size-2 rounded-full ${connected ? "bg-emerald-500" : "bg-zinc-300"}`} aria-hidden="true" />
          {connected ? "Live" : "Connecting…"}
        </span>
      </div>
      <h1 data-testid="share-title" className="text-2xl font-semibold tracking-tight break-words text-zinc-900">
        {session.title}
      </h1>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5 text-xs text-zinc-500">
        <StatusBadge status={status} />
        {session.parentId ? <Badge tone="violet">Child session</Badge> : null}
        <span>
          Updated <RelativeTime time={session.time.updated} />
        </span>
        {session.model ? (
          <span className="font-mono">
            {session.model.providerId}/{session.model.modelId}
          </span>
        ) : null}
        {session.summary && session.summary.files > 0 ? (
          <span className="font-mono" title={`${session.summary.files} files changed`}>
            <span className="text-emerald-600">+{session.summary.additions}</span> <span className="text-red-600">−{session.summary.deletions}</span>
          </span>
        ) : null}
        <span className="tabular-nums">{formatTokens(totalTokens(session.tokens))}</span>
        <span className="font-mono text-zinc-700 tabular-nums">{formatCost(session.cost)}</span>
      </div>
    </header>
  );
}

function StatusBadge({ status }: { status: Status }) {
  if (status.type === "idle") return <span data-testid="share-status" data-status="idle" className="sr-only">Idle</span>;
  if (status.type === "busy") {
    return (
      <Badge tone="blue" data-testid="share-status" data-status="busy">
        Working
      </Badge>
    );
  }
  return (
    <Badge tone="amber" data-testid="share-status" data-status="retry">
      Retrying (attempt {status.attempt}): {status.message}
    </Badge>
  );
}

function Notice({ testId, title, children }: { testId: string; title: string; children: ReactNode }) {
  return (
    <div role="alert" data-testid={testId} className="mx-auto max-w-md py-16 text-center">
      <h1 className="text-lg font-semibold text-zinc-900">{title}</h1>
      <p className="mt-2 text-sm text-zinc-500">{children}</p>
    </div>
  );
}
