"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
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
import { PermissionPrompt } from "@/components/permission/permission-prompt";
import { useTRPC } from "@/components/trpc/client";
import { ChangesButton } from "@/components/workspace/changes-panel";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button";
import { ErrorNotice, Loading, errorMessage } from "@/components/ui/feedback";
import { formatCost, formatTokens, totalTokens } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";
import { Breadcrumbs } from "./breadcrumbs";
import { ChildrenList } from "./children-list";
import { CompactButton } from "./compact-button";
import { pageTitle } from "./attention";
import { ContextMeter } from "./context-meter";
import { NotifyToggle } from "./notify-toggle";
import { SessionActions } from "./session-actions";
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
    <div data-chat-layout className="flex min-h-[calc(100dvh-5rem-1px)] flex-col gap-8 sm:min-h-[calc(100dvh-5.5rem-1px)]">
      <title>{pageTitle(info.title, signal)}</title>
      <SessionHeader session={info} status={status} messages={messages} />
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

function SessionHeader({ session, status, messages }: { session: SessionInfo; status: Status; messages: WithParts[] }) {
  const [editing, setEditing] = useState(false);
  return (
    // Laid out by its own width (a container query), not the screen's: with the Changes panel
    // open beside it the title keeps a whole line above the actions.
    <header className="@container space-y-3">
      <Breadcrumbs session={session} />
      <div className="flex flex-col gap-4 @4xl:flex-row @4xl:items-start @4xl:justify-between">
        <div className="min-w-0 flex-1 space-y-2">
          <SessionTitle session={session} editing={editing} onEditingChange={setEditing} />
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5 text-xs text-zinc-500">
            <SessionStatusBadge status={status} />
            {session.time.archived !== undefined ? <Badge data-testid="archived-badge">Archived</Badge> : null}
            {session.parentId ? <Badge tone="violet">Child session</Badge> : null}
            <span>
              Updated <RelativeTime time={session.time.updated} />
            </span>
            {/* A workspace's path is long and unbroken: cut to the screen, whole on hover. */}
            <span className="max-w-full truncate font-mono" title={`Working directory: ${session.directory}`} data-testid="session-directory">
              {session.directory}
            </span>
            {session.model ? (
              <span className="font-mono">
                {session.model.providerId}/{session.model.modelId}
              </span>
            ) : null}
            <span data-testid="session-tokens" className="tabular-nums">
              {formatTokens(totalTokens(session.tokens))}
            </span>
            <span data-testid="session-cost" className="font-mono text-zinc-700 tabular-nums">
              {formatCost(session.cost)}
            </span>
            <ContextMeter info={session} messages={messages} />
            <CompactButton info={session} status={status} />
          </div>
        </div>
        {editing ? null : <SessionActions session={session} onRename={() => setEditing(true)} />}
        {editing ? null : (
          <div className="flex flex-wrap items-start gap-2">
            <ChangesButton sessionId={session.id} projectId={session.projectId} busy={isRunning(status)} revision={JSON.stringify(session.revert ?? null)} />
            <SessionSettingsButton session={session} />
            <NotifyToggle />
          </div>
        )}
      </div>
      <ShareButton session={session} />
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
