"use client";

import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ARCHIVED, type ArchivedFilter, type DashboardQuery, SORTS, STATUSES, type SortKey, type StatusFilter, isFiltered } from "./query";

const SEARCH_DELAY_MS = 300;

const STATUS_LABEL: Record<StatusFilter, string> = { idle: "Idle", busy: "Working", retry: "Retrying" };
const SORT_LABEL: Record<SortKey, string> = { updated: "Last updated", cost: "Cost", tokens: "Tokens" };
const ARCHIVED_LABEL: Record<ArchivedFilter, string> = { active: "Not archived", archived: "Archived only", all: "Archived and not" };

const control =
  "h-9 rounded-lg border-0 bg-white px-2.5 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600 focus:outline-none";

export interface FilterOptions {
  projects: { id: string; name: string }[];
  authors: { id: string; name: string; email: string }[];
}

/** Every filter back to its default (the sort is kept). */
const CLEARED: Partial<DashboardQuery> = { projectId: undefined, authorId: undefined, status: undefined, from: undefined, to: undefined, archived: "active", search: undefined };

/**
 * The dashboard's filters, full-text search (debounced) and sort. Each change is a patch
 * (`onChange`), applied by the owner to the latest query, so quick successive changes
 * never undo each other.
 */
export function DashboardFilters({ query, options, onChange }: { query: DashboardQuery; options: FilterOptions; onChange: (patch: Partial<DashboardQuery>) => void }) {
  const [text, setText] = useState(query.search ?? "");
  const pushed = useRef(query.search);
  const latest = useRef(onChange);
  useEffect(() => {
    latest.current = onChange;
  });

  // The URL changed by itself (back/forward, a link): show its search.
  useEffect(() => {
    if (query.search === pushed.current) return;
    pushed.current = query.search;
    setText(query.search ?? "");
  }, [query.search]);

  useEffect(() => {
    const search = text.trim() || undefined;
    if (search === pushed.current) return;
    const timer = setTimeout(() => {
      pushed.current = search;
      latest.current({ search });
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const set = onChange;
  return (
    <div className="space-y-3" data-testid="dashboard-filters">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
        <input
          type="search"
          value={text}
          onChange={(event) => setText(event.target.value)}
          placeholder="Search titles, messages, tool output and files"
          aria-label="Search sessions"
          className={`${control} w-full px-3 placeholder:text-zinc-400 sm:flex-1`}
        />
        <label className="flex items-center gap-2 text-sm text-zinc-600">
          Sort by
          <select aria-label="Sort by" value={query.sort} onChange={(event) => set({ sort: event.target.value as SortKey })} className={control}>
            {SORTS.map((sort) => (
              <option key={sort} value={sort}>
                {SORT_LABEL[sort]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <select aria-label="Project" value={query.projectId ?? ""} onChange={(event) => set({ projectId: event.target.value || undefined })} className={control}>
          <option value="">All projects</option>
          {options.projects.map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
            </option>
          ))}
        </select>
        <select aria-label="Author" value={query.authorId ?? ""} onChange={(event) => set({ authorId: event.target.value || undefined })} className={control}>
          <option value="">All authors</option>
          {options.authors.map((author) => (
            <option key={author.id} value={author.id}>
              {author.name || author.email}
            </option>
          ))}
        </select>
        <select
          aria-label="Status"
          value={query.status ?? ""}
          onChange={(event) => set({ status: (event.target.value || undefined) as StatusFilter | undefined })}
          className={control}
        >
          <option value="">Any status</option>
          {STATUSES.map((status) => (
            <option key={status} value={status}>
              {STATUS_LABEL[status]}
            </option>
          ))}
        </select>
        <select aria-label="Archived" value={query.archived} onChange={(event) => set({ archived: event.target.value as ArchivedFilter })} className={control}>
          {ARCHIVED.map((archived) => (
            <option key={archived} value={archived}>
              {ARCHIVED_LABEL[archived]}
            </option>
          ))}
        </select>
        <label className="flex items-center gap-1.5 text-sm text-zinc-600">
          Updated from
          <input type="date" aria-label="Updated from" value={query.from ?? ""} max={query.to} onChange={(event) => set({ from: event.target.value || undefined })} className={control} />
        </label>
        <label className="flex items-center gap-1.5 text-sm text-zinc-600">
          to
          <input type="date" aria-label="Updated to" value={query.to ?? ""} min={query.from} onChange={(event) => set({ to: event.target.value || undefined })} className={control} />
        </label>
        {isFiltered(query) ? (
          <Button
            size="sm"
            variant="ghost"
            onClick={() => {
              pushed.current = undefined;
              setText("");
              onChange(CLEARED);
            }}
          >
            Clear filters
          </Button>
        ) : null}
      </div>
    </div>
  );
}
