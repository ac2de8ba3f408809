"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useMemo, useState } from "react";
import { Composer } from "@/components/chat/composer";
import { MessageList } from "@/components/chat/message-list";
import { QueuedMessages } from "@/components/chat/queued";
import { ChatActionsContext } from "@/components/chat/message-actions";
import { RevertBanner } from "@/components/chat/revert-banner";
import { shownMessages } from "@/components/chat/revert";
import { SessionStatusBadge, isRunning, useSessionStatus } from "@/components/chat/session-status";
import { ViewerIdContext } from "@/components/chat/message-view";
import { DiffSourceContext } from "@/components/chat/turn-diff";
import type { Status, WithParts } from "@/components/chat/types";
import { useLiveSession } from "@/components/chat/use-live-session";
import { useVersionsRefresh } from "@/components/chat/versions";
import { PermissionPrompt } from "@/components/permission/permission-prompt";
import { SessionPresence } from "@/components/presence/session-presence";
import { useTRPC } from "@/components/trpc/client";
import { ChangesButton } from "@/components/workspace/changes-panel";
import { Badge } from "@/components/ui/badge";
import { Button, buttonClass } from "@/components/ui/button";
import { ErrorNotice, Loading, errorMessage } from "@/components/ui/feedback";
import { formatCost, formatTokens, totalTokens } from "@/components/ui/format";
import { Icon } from "@/components/parts/icons";
import { Breadcrumbs } from "./breadcrumbs";
import { ChildrenList } from "./children-list";
import { CompactButton } from "./compact-button";
import { pageTitle } from "./attention";
import { ContextMeter } from "./context-meter";
import { NotifyToggle } from "./notify-toggle";
import { SessionActions } from "./session-actions";
import { SessionDetails } from "./session-details";
import { SessionSettingsButton } from "./session-settings";
import { SessionTitle } from "./session-title";
import { ShareButton } from "./share-button";
import type { SessionInfo } from "./types";
import { useAttention } from "./use-attention";
import { useSessionKeyboard } from "./use-session-keyboard";

/** `viewerId`: the signed-in member (their own messages read "You"). */
export function SessionPage({ sessionId, viewerId }: { sessionId: string; viewerId?: string | undefined }) {
  const trpc = useTRPC();
  const session = useQuery(trpc.session.get.queryOptions({ sessionId }));
  const live = useLiveSession(sessionId);
  const status = useSessionStatus(session.data?.status, live.status);
  // The loaded messages, oldest first.
  const messages = live.snapshot.messages;

  const info = live.info ?? session.data;
  const shown = useMemo(() => shownMessages(messages, info?.revert), [messages, info?.revert]);
  const lastAssistantId = shown.messages.findLast((m) => m.info.role === "assistant")?.info.id;
  const busy = isRunning(status);
  const actions = useMemo(() => ({ sessionId, busy, lastAssistantId }), [sessionId, busy, lastAssistantId]);
  const diffSource = useMemo(() => ({ kind: "member" as const, sessionId }), [sessionId]);
  useVersionsRefresh(sessionId, messages);
  useSessionKeyboard({ sessionId, ready: Boolean(info && session.data), status, messages });
  const signal = useAttention({ sessionId, title: info?.title ?? "", status, messages });

  if (live.deleted) {
    return (
      <Gone title="This session was deleted">
        It no longer exists. <BackLink />
      </Gone>
    );
  }
  if (session.isPending) return <Loading label="Loading session…" />;
  if (session.isError) {
    const notFound = session.error.data?.code === "NOT_FOUND" || session.error.data?.code === "BAD_REQUEST";
    return notFound ? (
      <Gone title="Session not found">
        There is no session <code className="font-mono">{sessionId}</code> in your team. <BackLink />
      </Gone>
    ) : (
      <ErrorNotice title="Could not load the session">{errorMessage(session.error)}</ErrorNotice>
    );
  }
  if (!info) return <Loading label="Loading session…" />;
  // At least as tall as the screen below the header, the conversation taking the free
  // space: the composer sits at the bottom of the screen even in a short session, and
  // sticks there (composer.tsx) while a long one scrolls.
  return (
    <div data-chat-layout className="flex min-h-[calc(100dvh-5rem-1px)] flex-col gap-4 sm:min-h-[calc(100dvh-5.5rem-1px)] sm:gap-6">
      <title>{pageTitle(info.title, signal)}</title>
      <SessionHeader session={info} status={status} messages={messages} viewerId={viewerId} />
      <ChildrenList sessionId={sessionId} />
      <PermissionPrompt sessionId={sessionId} messages={shown.messages}>
        <div className="flex-1">
          <QueuedMessages sessionId={sessionId} messages={messages} status={status}>
            <DiffSourceContext value={diffSource}>
              <ChatActionsContext value={actions}>
                <ViewerIdContext value={viewerId}>
                  <MessageList live={live} revert={info.revert} />
                </ViewerIdContext>
              </ChatActionsContext>
            </DiffSourceContext>
          </QueuedMessages>
        </div>
        <RevertBanner session={info} hidden={shown.hidden} busy={isRunning(status)} />
      </PermissionPrompt>
      <Composer session={session.data} status={status} messages={messages} />
    </div>
  );
}

/**
 * The session's chrome, kept short so the conversation starts high on the page: the title
 * with the buttons used while chatting, one line of status and usage, and the rest —
 * actions, share link, directory, model, the usage of each step — behind "Details".
 */
function SessionHeader({ session, status, messages, viewerId }: { session: SessionInfo; status: Status; messages: WithParts[]; viewerId: string | undefined }) {
  const [editing, setEditing] = useState(false);
  const [details, setDetails] = useState(false);
  const detailsId = useId();
  return (
    // Laid out by its own width (a container query), not the screen's: with the Changes panel
    // open beside it the title keeps a whole line above the buttons.
    <header className="@container space-y-2">
      {session.parentId ? <Breadcrumbs session={session} /> : null}
      <div className="flex flex-col gap-2 @2xl:flex-row @2xl:items-start @2xl:justify-between">
        <div className="min-w-0 flex-1">
          <SessionTitle session={session} editing={editing} onEditingChange={setEditing} />
        </div>
        {editing ? null : (
          <div className="flex flex-wrap items-center gap-2">
            <ChangesButton sessionId={session.id} projectId={session.projectId} busy={isRunning(status)} revision={JSON.stringify(session.revert ?? null)} />
            <SessionSettingsButton session={session} />
            <NotifyToggle />
            <Button size="sm" variant="ghost" aria-expanded={details} aria-controls={detailsId} data-testid="session-details-toggle" onClick={() => setDetails((open) => !open)}>
              Details
              <Icon name="chevron" className={`size-3.5 transition-transform ${details ? "rotate-90" : ""}`} />
            </Button>
          </div>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-500">
        <SessionStatusBadge status={status} />
        <SessionPresence sessionId={session.id} viewerId={viewerId} />
        {session.time.archived !== undefined ? <Badge data-testid="archived-badge">Archived</Badge> : null}
        {session.parentId ? <Badge tone="violet">Child session</Badge> : null}
        <span data-testid="session-tokens" className="tabular-nums">
          {formatTokens(totalTokens(session.tokens))}
        </span>
        <span data-testid="session-cost" className="font-mono text-zinc-700 tabular-nums">
          {formatCost(session.cost)}
        </span>
        <ContextMeter info={session} messages={messages} />
        <CompactButton info={session} status={status} messages={messages} />
      </div>
      {details ? (
        <SessionDetails id={detailsId} session={session} messages={messages}>
          {editing ? null : <SessionActions session={session} onRename={() => setEditing(true)} />}
          <ShareButton session={session} />
        </SessionDetails>
      ) : null}
    </header>
  );
}

function Gone({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="mx-auto max-w-md py-16 text-center">
      <h1 className="text-lg font-semibold text-zinc-900">{title}</h1>
      <p className="mt-2 text-sm text-zinc-500">{children}</p>
    </div>
  );
}

function BackLink() {
  return (
    <Link href="/" className={buttonClass("secondary", "sm", "mt-4 flex w-fit mx-auto")}>
      Back to sessions
    </Link>
  );
}
