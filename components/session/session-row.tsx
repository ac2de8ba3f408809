"use client";

import Link from "next/link";
import type { Status } from "@/components/chat/types";
import { Highlight } from "@/components/search/highlight";
import { SnippetLine } from "@/components/search/snippet";
import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/feedback";
import { formatCost, formatTokens, totalTokens } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";
import { BranchBadge } from "@/components/workspace/branch-badge";
import type { Snippet } from "@/server/search/search";
import type { Segment } from "@/server/search/snippet";
import type { AppRouter } from "@/server/trpc/router";
import { ChildMark } from "@/components/ui/list-card";
import type { inferRouterOutputs } from "@trpc/server";
import type { SessionInfo } from "./types";

/** A session as the list shows it: with its author. */
export type ListedSession = inferRouterOutputs<AppRouter>["session"]["list"]["items"][number];

/** Where a session matched a search: its title marked, and the part that matched. */
export interface SearchMatch {
  title: Segment[];
  snippet: Snippet;
}

export const IDLE: Status = { type: "idle" };

/**
 * One row of the session list: title (marked when searching, with the part that
 * matched), project, author, activity, parent or children, branch, changed lines, cost and tokens.
 */
export function SessionRow({ session, parent, status, mine, match }: { session: ListedSession; parent: SessionInfo | undefined; status: Status; mine: boolean; match?: SearchMatch | undefined }) {
  const tokens = totalTokens(session.tokens);
  return (
    <li data-testid="session-row" data-session-id={session.id} className="group relative flex flex-col gap-2 px-4 py-3.5 transition-colors hover:bg-zinc-50 sm:flex-row sm:items-center sm:gap-6 sm:px-5">
      <div className="min-w-0 flex-1">
        <div className="flex items-center gap-2">
          {session.parentId ? <ChildMark /> : null}
          <Link
            href={`/sessions/${session.id}`}
            className="truncate font-medium text-zinc-900 after:absolute after:inset-0 focus-visible:outline-none group-focus-within:underline"
          >
            {match ? <Highlight segments={match.title} /> : session.title}
          </Link>
          <Running status={status} />
          {session.time.archived ? <Badge>Archived</Badge> : null}
          {session.share ? <Badge tone="indigo">Shared</Badge> : null}
        </div>
        {match ? <SnippetLine snippet={match.snippet} /> : null}
        <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-500">
          <span data-testid="session-project" className="font-medium text-zinc-700">
            {session.project.name}
          </span>
          <span data-testid="session-author" data-author-id={session.author.id}>
            by <span className="font-medium text-zinc-700">{mine ? "you" : session.author.name}</span>
          </span>
          <span>
            Updated <RelativeTime time={session.time.updated} />
          </span>
          {session.parentId ? (
            <span data-testid="parent-marker" className="truncate">
              Child of {parent ? <span className="font-medium text-zinc-700">{parent.title}</span> : "another session"}
            </span>
          ) : null}
          {session.children > 0 ? (
            <span data-testid="children-count">
              {session.children} child session{session.children === 1 ? "" : "s"}
            </span>
          ) : null}
          <BranchBadge workspace={session.workspace} className="max-w-64" />
          {session.summary && session.summary.files > 0 ? (
            <span className="font-mono">
              <span className="text-emerald-600">+{session.summary.additions}</span>{" "}
              <span className="text-red-600">−{session.summary.deletions}</span>
            </span>
          ) : null}
        </div>
      </div>
      <dl className="flex shrink-0 items-center gap-4 text-xs text-zinc-500 sm:text-right">
        <div>
          <dt className="sr-only">Cost</dt>
          <dd className="font-mono text-zinc-700 tabular-nums">{formatCost(session.cost)}</dd>
        </div>
        <div className="sm:w-24">
          <dt className="sr-only">Tokens</dt>
          <dd className="tabular-nums">{formatTokens(tokens)}</dd>
        </div>
      </dl>
    </li>
  );
}

/** Whether the session's agent is at work now (live from the team's status events). */
function Running({ status }: { status: Status }) {
  if (status.type === "idle") return null;
  return status.type === "busy" ? (
    <Badge tone="blue" data-testid="session-running" data-status="busy">
      <Spinner className="size-3" />
      Working
    </Badge>
  ) : (
    <Badge tone="amber" data-testid="session-running" data-status="retry">
      <Spinner className="size-3" />
      Retrying
    </Badge>
  );
}
