"use client";

import { Button } from "@/components/ui/button";
import { EmptyState, ErrorNotice, Loading, Spinner, errorMessage } from "@/components/ui/feedback";
import { MessageView } from "./message-view";
import type { LiveSession } from "./use-live-session";

/** The conversation: older pages on demand at the top, newest at the bottom, corrupt rows reported. */
export function MessageList({ messages: query }: { messages: LiveSession["messages"] }) {
  if (query.isPending) return <Loading label="Loading messages…" />;
  if (query.isError) return <ErrorNotice title="Could not load messages">{errorMessage(query.error)}</ErrorNotice>;
  // pages[0] is the newest page; show oldest first.
  const pages = [...query.data.pages].reverse();
  const messages = pages.flatMap((page) => page.messages);
  const corrupt = pages.flatMap((page) => page.corrupt);
  return (
    <div className="space-y-6">
      {query.hasNextPage ? (
        <div className="flex justify-center">
          <Button size="sm" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? <Spinner className="size-3.5" /> : null}
            Load older messages
          </Button>
        </div>
      ) : null}
      {corrupt.length > 0 ? (
        <div data-testid="corrupt-warning">
          <ErrorNotice title={`${corrupt.length} stored ${corrupt.length === 1 ? "row" : "rows"} of this session could not be read and ${corrupt.length === 1 ? "is" : "are"} not shown`}>
            <ul className="mt-1 space-y-0.5 font-mono text-xs">
              {corrupt.map((row) => (
                <li key={`${row.table}-${row.id}`} className="break-all">
                  {row.table} {row.id}: {row.error}
                </li>
              ))}
            </ul>
          </ErrorNotice>
        </div>
      ) : null}
      {messages.length === 0 ? (
        <EmptyState title="No messages yet">This session has no conversation yet.</EmptyState>
      ) : (
        messages.map((message) => <MessageView key={message.info.id} message={message} />)
      )}
    </div>
  );
}
