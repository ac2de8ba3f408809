"use client";

import Link from "next/link";
import { type ReactNode, useDeferredValue, useState } from "react";
import { Highlight } from "@/components/search/highlight";
import { SearchBox } from "@/components/search/search-box";
import { SnippetLine } from "@/components/search/snippet";
import { useSessionSearch } from "@/components/search/use-session-search";
import { ErrorNotice, Loading, errorMessage } from "@/components/ui/feedback";

/**
 * The sidebar's search (issue 33, point 8): the team's sessions by the words of their
 * titles, messages, tool titles and output and file paths, each hit with where it matched;
 * while the field is empty, the sidebar's own list (`children`) shows instead.
 */
export function SidebarSearch({ current, children }: { current: string | undefined; children: ReactNode }) {
  const [search, setSearch] = useState("");
  const term = useDeferredValue(search.trim());
  const found = useSessionSearch(term, { limit: 20 });
  const hits = found.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <>
      <SearchBox value={search} onChange={setSearch} label="Search sessions" placeholder="Search sessions" className="mx-2 mb-3" />
      {!term ? (
        children
      ) : found.error ? (
        <ErrorNotice title="Could not search">{errorMessage(found.error)}</ErrorNotice>
      ) : !found.data ? (
        <Loading label="Searching…" />
      ) : hits.length === 0 ? (
        <p className="px-3 py-2 text-sm text-zinc-500">No session matches.</p>
      ) : (
        <ul aria-label="Search results" className="space-y-0.5" data-testid="sidebar-search-results">
          {hits.map((hit) => (
            <li key={hit.session.id} data-testid="sidebar-search-hit" data-session-id={hit.session.id}>
              <Link
                href={`/sessions/${hit.session.id}`}
                aria-current={hit.session.id === current ? "page" : undefined}
                className="block rounded-lg px-3 py-1.5 text-sm text-zinc-800 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-600"
              >
                <Highlight segments={hit.title} className="block truncate font-medium" />
                <span className="block truncate text-xs text-zinc-500">{hit.project.name}</span>
                <SnippetLine snippet={hit.snippet} />
              </Link>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
