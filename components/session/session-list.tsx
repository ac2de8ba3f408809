"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useDeferredValue, useState } from "react";
import type { Status } from "@/components/chat/types";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { LoadMore } from "@/components/ui/load-more";
import { EmptyState, ErrorNotice, Loading, Spinner, errorMessage } from "@/components/ui/feedback";
import { formatCost, formatTokens, totalTokens } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";
import { BranchBadge } from "@/components/workspace/branch-badge";
import { NewSessionButton } from "./new-session-button";
import type { SessionInfo } from "./types";
import { useTeamEvents } from "./use-team-events";
import type { AppRouter } from "@/server/trpc/router";

const PAGE_SIZE = 50;

/** A session as the list shows it: with its author. */
type ListedSession = inferRouterOutputs<AppRouter>["session"]["list"]["items"][number];

/**
 * Every session of the team, newest activity first, with search and an archived view;
 * each row names its author ("by you" for `viewerId`'s own) and shows, live, when it runs.
 */
export function SessionList({ viewerId }: { viewerId?: string | undefined } = {}) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const archived = params.get("archived") === "1";
  const [search, setSearch] = useState("");
  const term = useDeferredValue(search.trim());
  const statuses = useTeamEvents();

  const query = useInfiniteQuery({
    ...trpc.session.list.infiniteQueryOptions(
      { archived, search: term || undefined, limit: PAGE_SIZE },
      { getNextPageParam: (page) => page.nextCursor },
    ),
    placeholderData: keepPreviousData,
  });
  const sessions = query.data?.pages.flatMap((page) => page.items) ?? [];
  const corrupt = query.data?.pages.flatMap((page) => page.corrupt) ?? [];
  const byId = new Map(sessions.map((s) => [s.id, s]));

  const setArchived = (value: boolean) => {
    const next = new URLSearchParams(params);
    if (value) next.set("archived", "1");
    else next.delete("archived");
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Sessions</h1>
          <p className="mt-1 text-sm text-zinc-500">Every agent session of your team, most recently active first.</p>
        </div>
        <NewSessionButton />
      </div>

      <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
        <div className="relative flex-1">
          <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-zinc-400">
            <path fillRule="evenodd" d="M9 3.5a5.5 5.5 0 1 0 3.4 9.83l3.13 3.14a.75.75 0 1 0 1.06-1.06l-3.13-3.14A5.5 5.5 0 0 0 9 3.5zM5 9a4 4 0 1 1 8 0 4 4 0 0 1-8 0z" clipRule="evenodd" />
          </svg>
          <input
            type="search"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            placeholder="Search by title"
            aria-label="Search sessions by title"
            className="h-9 w-full rounded-lg border-0 bg-white pr-3 pl-9 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600 focus:outline-none"
          />
        </div>
        <div role="group" aria-label="Which sessions" className="inline-flex rounded-lg bg-zinc-200/70 p-0.5 text-sm">
          {[
            { label: "Active", value: false },
            { label: "Archived", value: true },
          ].map((option) => (
            <button
              key={option.label}
              type="button"
              aria-pressed={archived === option.value}
              onClick={() => setArchived(option.value)}
              className={`rounded-md px-3 py-1.5 font-medium transition-colors ${
                archived === option.value ? "bg-white text-zinc-900 shadow-sm" : "text-zinc-600 hover:text-zinc-900"
              }`}
            >
              {option.label}
            </button>
          ))}
        </div>
      </div>

      {corrupt.length > 0 ? (
        <ErrorNotice title={`${corrupt.length} session${corrupt.length === 1 ? "" : "s"} could not be read`}>
          <ul className="list-inside list-disc font-mono text-xs">
            {corrupt.map((row) => (
              <li key={row.id}>
                {row.id}: {row.error}
              </li>
            ))}
          </ul>
        </ErrorNotice>
      ) : null}

      {query.isPending ? (
        <Loading label="Loading sessions…" />
      ) : query.isError ? (
        <ErrorNotice title="Could not load sessions">{errorMessage(query.error)}</ErrorNotice>
      ) : sessions.length === 0 ? (
        <EmptyState title={term ? "No session matches your search" : archived ? "No archived sessions" : "No sessions yet"}>
          {term ? "Try another title." : archived ? "Archived sessions appear here." : "Start one with “New session”."}
        </EmptyState>
      ) : (
        <ul
          aria-label="Sessions"
          data-testid="session-list"
          className={`divide-y divide-zinc-100 overflow-hidden rounded-2xl bg-white shadow-sm ring-1 ring-zinc-200 transition-opacity ${query.isPlaceholderData ? "opacity-60" : ""}`}
        >
          {sessions.map((session) => (
            <SessionRow
              key={session.id}
              session={session}
              parent={session.parentId ? byId.get(session.parentId) : undefined}
              status={statuses.get(session.id) ?? session.status ?? IDLE}
              mine={session.author.id === viewerId}
            />
          ))}
        </ul>
      )}

      <LoadMore query={query} />
    </div>
  );
}

const IDLE: Status = { type: "idle" };

function SessionRow({ session, parent, status, mine }: { session: ListedSession; parent: SessionInfo | undefined; status: Status; mine: boolean }) {
  const tokens = totalTokens(session.tokens);
  return (
    <li data-testid="session-row" data-session-id={session.id} className="group relative flex flex-col gap-2 px-4 py-3.5 transition-colors hover:bg-zinc-50 sm:flex-row sm:items-center sm:gap-6 sm:px-5">
      <div className="min-w-0 flex-1">
        <div className="flex items-center gap-2">
          {session.parentId ? (
            <span title="Child session" className="text-zinc-400" aria-hidden="true">
              ↳
            </span>
          ) : null}
          <Link
            href={`/sessions/${session.id}`}
            className="truncate font-medium text-zinc-900 after:absolute after:inset-0 focus-visible:outline-none group-focus-within:underline"
          >
            {session.title}
          </Link>
          <Running status={status} />
          {session.time.archived ? <Badge>Archived</Badge> : null}
          {session.share ? <Badge tone="indigo">Shared</Badge> : null}
        </div>
        <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-500">
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
