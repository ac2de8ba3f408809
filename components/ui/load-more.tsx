"use client";

import { Button } from "./button";
import { Spinner } from "./feedback";

/** The "Load more" button under a paged list (an infinite query's next page). */
export function LoadMore({ query }: { query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown } }) {
  if (!query.hasNextPage) return null;
  return (
    <div className="flex justify-center">
      <Button onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
        {query.isFetchingNextPage ? <Spinner /> : null}
        Load more
      </Button>
    </div>
  );
}
