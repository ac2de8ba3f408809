"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useDeferredValue, useState } from "react";
import { SearchBox } from "@/components/search/search-box";
import { useSessionSearch } from "@/components/search/use-session-search";
import { useTRPC } from "@/components/trpc/client";
import { LoadMore } from "@/components/ui/load-more";
import { EmptyState, ErrorNotice, Loading, errorMessage } from "@/components/ui/feedback";
import { ListCard } from "@/components/ui/list-card";
import { CorruptSessions } from "./corrupt-sessions";
import { NewSessionButton } from "./new-session-button";
import { IDLE, type ListedSession, type SearchMatch, SessionRow } from "./session-row";
import { useTeamEvents } from "./use-team-events";

const PAGE_SIZE = 50;

/**
 * Every root session of the team (child sessions are reached from their parent), newest
 * activity first, each with its project, with an archived view and full-text
 * search (titles, messages, tool output, file paths: each found row says where it
 * matched); each row names its author ("by you" for `viewerId`'s own) and shows, live,
 * when it runs.
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

  const listed = useInfiniteQuery({
    ...trpc.session.list.infiniteQueryOptions({ archived, parentId: null, limit: PAGE_SIZE }, { getNextPageParam: (page) => page.nextCursor }),
    enabled: !term,
    placeholderData: keepPreviousData,
  });
  const found = useSessionSearch(term, { archived, limit: PAGE_SIZE });
  const query = term ? found : listed;
  const matches = new Map<string, SearchMatch>();
  const sessions: ListedSession[] = term
    ? (found.data?.pages.flatMap((page) => page.items) ?? []).map((hit) => {
        matches.set(hit.session.id, { title: hit.title, snippet: hit.snippet });
        return { ...hit.session, author: hit.author, project: hit.project, children: 0, ...(hit.workspace ? { workspace: hit.workspace } : {}) };
      })
    : (listed.data?.pages.flatMap((page) => page.items) ?? []);
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
        <SearchBox value={search} onChange={setSearch} className="flex-1" />
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

      <CorruptSessions rows={corrupt} />

      {query.isPending ? (
        <Loading label="Loading sessions…" />
      ) : query.isError ? (
        <ErrorNotice title="Could not load sessions">{errorMessage(query.error)}</ErrorNotice>
      ) : sessions.length === 0 ? (
        <EmptyState title={term ? "No session matches your search" : archived ? "No archived sessions" : "No sessions yet"}>
          {term ? "Titles, messages, tool output and file paths were searched: try other words." : archived ? "Archived sessions appear here." : "Start one with “New session”."}
        </EmptyState>
      ) : (
        <ListCard label="Sessions" testId="session-list" dimmed={query.isPlaceholderData}>
          {sessions.map((session) => (
            <SessionRow
              key={session.id}
              session={session}
              parent={session.parentId ? byId.get(session.parentId) : undefined}
              status={statuses.get(session.id) ?? session.status ?? IDLE}
              mine={session.author.id === viewerId}
              match={matches.get(session.id)}
            />
          ))}
        </ListCard>
      )}

      <LoadMore query={query} />
    </div>
  );
}
