"use client";

import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { CorruptSessions } from "@/components/session/corrupt-sessions";
import { useTRPC } from "@/components/trpc/client";
import { LoadMore } from "@/components/ui/load-more";
import { EmptyState, ErrorNotice, Loading, errorMessage } from "@/components/ui/feedback";
import { DashboardFilters } from "./dashboard-filters";
import { SpendingCard } from "./spending-card";
import { DashboardTable } from "./dashboard-table";
import { type DashboardQuery, formatQuery, isFiltered, listInput, parseQuery } from "./query";
import { arrange } from "./tree";
import { useDashboardEvents } from "./use-dashboard-events";
import { WaitingSessions } from "./waiting-sessions";

const PAGE_SIZE = 50;

/**
 * The team dashboard: every session of the team, roots and children, as a
 * tree, the sessions waiting for approval first; filters, search and sort kept in the URL;
 * totals over the whole filter; status live from the team's event stream; more rows on demand.
 */
export function Dashboard() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const query = useMemo(() => parseQuery(params), [params]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());

  const projects = useQuery(trpc.project.list.queryOptions());
  const team = useQuery(trpc.team.current.queryOptions());
  const authors = useQuery(trpc.dashboard.authors.queryOptions());
  const statuses = useDashboardEvents(team.data?.id);
  const list = useInfiniteQuery({
    ...trpc.dashboard.list.infiniteQueryOptions(listInput(query, PAGE_SIZE), { getNextPageParam: (page) => page.nextCursor }),
    placeholderData: keepPreviousData,
  });

  const items = useMemo(() => list.data?.pages.flatMap((page) => page.items) ?? [], [list.data]);
  const rows = useMemo(() => arrange(items, collapsed), [items, collapsed]);
  const corrupt = list.data?.pages.flatMap((page) => page.corrupt) ?? [];
  const totals = list.data?.pages[0]?.totals;

  // The query last sent to the URL, until the URL shows it: changes made in between build on it.
  const pending = useRef<DashboardQuery | undefined>(undefined);
  useEffect(() => {
    if (pending.current && formatQuery(pending.current) === formatQuery(query)) pending.current = undefined;
  }, [query]);
  const setQuery = (patch: Partial<DashboardQuery>) => {
    const next = { ...(pending.current ?? query), ...patch };
    pending.current = next;
    const qs = formatQuery(next);
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };
  const toggle = (sessionId: string) =>
    setCollapsed((current) => {
      const next = new Set(current);
      if (!next.delete(sessionId)) next.add(sessionId);
      return next;
    });

  return (
    <div className="space-y-6" data-wide-layout>
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Dashboard</h1>
        <p className="mt-1 text-sm text-zinc-500">Every session of your team, child sessions under their parents, with cost and status as they change.</p>
      </div>

      <WaitingSessions />
      <SpendingCard />

      <DashboardFilters query={query} options={{ projects: projects.data ?? [], authors: authors.data ?? [] }} onChange={setQuery} />

      <CorruptSessions rows={corrupt} />

      {list.isPending ? (
        <Loading label="Loading sessions…" />
      ) : list.isError ? (
        <ErrorNotice title="Could not load the dashboard">{errorMessage(list.error)}</ErrorNotice>
      ) : items.length === 0 || !totals ? (
        <EmptyState title={isFiltered(query) ? "No session matches these filters" : "No sessions yet"}>
          {isFiltered(query) ? "Try other filters." : "Sessions your team starts appear here."}
        </EmptyState>
      ) : (
        <div className={`transition-opacity ${list.isPlaceholderData ? "opacity-60" : ""}`} aria-busy={list.isFetching}>
          <DashboardTable rows={rows} totals={totals} statuses={statuses} collapsed={collapsed} onToggle={toggle} />
          <p className="mt-2 text-xs text-zinc-500" data-testid="dashboard-shown">
            Showing {items.length.toLocaleString("en")} of {totals.sessions.toLocaleString("en")}
          </p>
        </div>
      )}

      <LoadMore query={list} />
    </div>
  );
}
