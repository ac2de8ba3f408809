import Link from "next/link";
import { shownMessages } from "@/components/chat/revert";
import type { Status } from "@/components/chat/types";
import { ChildSessions } from "@/components/session/child-sessions";
import { Badge } from "@/components/ui/badge";
import { EmptyState, ErrorNotice } from "@/components/ui/feedback";
import { formatCost, formatTokens, totalTokens } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";
import { LoadOlderButton, ShareConnection, ShareLive } from "./share-live";
import { SharedMessage } from "./shared-message";
import { type SharePage, type SharedSession, shareHref } from "./types";

/**
 * A session seen through its share link: read-only (no control that changes anything),
 * rendered on the server — markdown and highlighted code included, so the browser gets
 * the content without the markdown stack — and kept live by a small island (share-live.tsx)
 * that has the server render it again as the session changes. `olderHref`: the address
 * showing one page more of older messages, when there are any.
 */
export function ShareView({ page, olderHref }: { page: SharePage; olderHref: string | undefined }) {
  return (
    <ShareLive shareId={page.share.id} sessionId={page.session.id} rootHref={shareHref(page.share.id, page.root.id, page.root.id)}>
      <ShareContent page={page} olderHref={olderHref} />
    </ShareLive>
  );
}

/** The page's content (the grammars of its code loaded beforehand: shared-markdown.tsx `sharedLanguages`). */
export function ShareContent({ page, olderHref }: { page: SharePage; olderHref: string | undefined }) {
  const shareId = page.share.id;
  const rootId = page.root.id;
  const href = (sessionId: string) => shareHref(shareId, rootId, sessionId);
  const { session } = page;
  const { messages, corrupt } = page.messages;
  // Messages a revert hides are not shown here either (they go with the session's next prompt).
  const shown = shownMessages(messages, session.revert);
  return (
      <div className="space-y-8" data-testid="share-view" data-session-id={session.id}>
        <ShareHeader session={session} root={page.root} href={href} />
        {page.children.length > 0 ? <ChildSessions sessions={page.children} href={href} headingId="share-children-heading" testId="share-children" /> : null}
        {corrupt.length > 0 ? (
          <ErrorNotice title={`${corrupt.length} stored ${corrupt.length === 1 ? "row" : "rows"} of this session could not be read and ${corrupt.length === 1 ? "is" : "are"} not shown`} />
        ) : null}
        <div className="space-y-6">
          {olderHref ? (
            <div className="flex justify-center">
              <LoadOlderButton href={olderHref} />
            </div>
          ) : null}
          {shown.messages.length === 0 ? (
            <EmptyState title="No messages yet">This session has no conversation yet.</EmptyState>
          ) : (
            shown.messages.map((message) => <SharedMessage key={message.info.id} message={message} />)
          )}
          {shown.hidden > 0 ? (
            <p data-testid="share-reverted" className="text-center text-xs text-zinc-500">
              {shown.hidden} later {shown.hidden === 1 ? "message was" : "messages were"} reverted by the session&apos;s owner.
            </p>
          ) : null}
        </div>
      </div>
  );
}

function ShareHeader({ session, root, href }: { session: SharedSession; root: SharedSession; href: (sessionId: string) => string }) {
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
        <ShareConnection />
      </div>
      <h1 data-testid="share-title" className="text-2xl font-semibold tracking-tight break-words text-zinc-900">
        {session.title}
      </h1>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5 text-xs text-zinc-500">
        <StatusBadge status={session.status ?? { type: "idle" }} />
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
  if (status.type === "idle") {
    return (
      <span data-testid="share-status" data-status="idle" className="sr-only">
        Idle
      </span>
    );
  }
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
