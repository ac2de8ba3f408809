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
          <FilterSelect label="Sort by" value={query.sort} options={SORTS.map((sort) => ({ value: sort, label: SORT_LABEL[sort] }))} onChange={(value) => set({ sort: value as SortKey })} />
        </label>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <FilterSelect
          label="Project"
          value={query.projectId ?? ""}
          any="All projects"
          options={options.projects.map((project) => ({ value: project.id, label: project.name }))}
          onChange={(value) => set({ projectId: value || undefined })}
        />
        <FilterSelect
          label="Author"
          value={query.authorId ?? ""}
          any="All authors"
          options={options.authors.map((author) => ({ value: author.id, label: author.name || author.email }))}
          onChange={(value) => set({ authorId: value || undefined })}
        />
        <FilterSelect
          label="Status"
          value={query.status ?? ""}
          any="Any status"
          options={STATUSES.map((status) => ({ value: status, label: STATUS_LABEL[status] }))}
          onChange={(value) => set({ status: (value || undefined) as StatusFilter | undefined })}
        />
        <FilterSelect label="Archived" value={query.archived} options={ARCHIVED.map((archived) => ({ value: archived, label: ARCHIVED_LABEL[archived] }))} onChange={(value) => set({ archived: value as ArchivedFilter })} />
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

/** One filter's select: its options (`any` first, the value "", when the filter may be off). */
function FilterSelect({ label, value, any, options, onChange }: { label: string; value: string; any?: string; options: { value: string; label: string }[]; onChange: (value: string) => void }) {
  return (
    <select aria-label={label} value={value} onChange={(event) => onChange(event.target.value)} className={control}>
      {any === undefined ? null : <option value="">{any}</option>}
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}
