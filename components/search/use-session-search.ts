"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";

/**
 * The team's sessions matching `query` (titles, message text, tool titles and output,
 * file paths), newest activity first, page by page; nothing is asked while `query` is
 * empty. Each hit carries its title and the part that matched as highlighted segments.
 */
export function useSessionSearch(query: string, options: { archived?: boolean; limit?: number } = {}) {
  const trpc = useTRPC();
  return useInfiniteQuery({
    ...trpc.search.sessions.infiniteQueryOptions(
      { query, archived: options.archived ?? false, limit: options.limit ?? 20 },
      { getNextPageParam: (page) => page.nextCursor },
    ),
    enabled: query.length > 0,
    placeholderData: keepPreviousData,
  });
}
