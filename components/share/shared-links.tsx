"use client";

import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { LoadMore } from "@/components/ui/load-more";
import { EmptyState, ErrorNotice, Loading, Spinner, errorMessage } from "@/components/ui/feedback";
import { RelativeTime } from "@/components/ui/relative-time";
import { ChildMark, ListCard } from "@/components/ui/list-card";
import type { SharedLink } from "./types";

const PAGE_SIZE = 50;
const VIEWS = [
  { label: "All", revoked: "all" },
  { label: "Active", revoked: false },
  { label: "Revoked", revoked: true },
] as const;
type View = (typeof VIEWS)[number];

/** The team's shared links, newest first, with revoke (a revoked URL stays dead: sharing again makes a new one). */
export function SharedLinks() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [view, setView] = useState<View>(VIEWS[0]);
  const query = useInfiniteQuery({
    ...trpc.share.listShares.infiniteQueryOptions({ revoked: view.revoked, limit: PAGE_SIZE }, { getNextPageParam: (page) => page.nextCursor }),
    placeholderData: keepPreviousData,
  });
  const onSuccess = (info: { id: string }) => {
    void queryClient.invalidateQueries({ queryKey: trpc.share.listShares.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.session.get.queryKey({ sessionId: info.id }) });
    void queryClient.invalidateQueries({ queryKey: trpc.session.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.dashboard.list.pathKey() });
  };
  const revoke = useMutation(trpc.session.unshare.mutationOptions({ onSuccess }));
  const reshare = useMutation(trpc.session.share.mutationOptions({ onSuccess }));
  const links = query.data?.pages.flatMap((page) => page.items) ?? [];
  const busyId = revoke.isPending ? revoke.variables?.sessionId : reshare.isPending ? reshare.variables?.sessionId : undefined;
  const error = revoke.error ?? reshare.error;

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">Shared links</h1>
          <p className="mt-1 text-sm text-zinc-500">Sessions of your team that anyone with the link can watch. Revoking takes effect at once.</p>
        </div>
        <div role="group" aria-label="Which links" className="inline-flex rounded-lg bg-zinc-200/70 p-0.5 text-sm">
          {VIEWS.map((option) => (
            <button
              key={option.label}
              type="button"
              aria-pressed={view === option}
              onClick={() => setView(option)}
              className={`rounded-md px-3 py-1.5 font-medium transition-colors ${view === option ? "bg-white text-zinc-900 shadow-sm" : "text-zinc-600 hover:text-zinc-900"}`}
            >
              {option.label}
            </button>
          ))}
        </div>
      </div>

      {error ? <ErrorNotice title="Could not change the link">{errorMessage(error)}</ErrorNotice> : null}

      {query.isPending ? (
        <Loading label="Loading shared links…" />
      ) : query.isError ? (
        <ErrorNotice title="Could not load the shared links">{errorMessage(query.error)}</ErrorNotice>
      ) : links.length === 0 ? (
        <EmptyState title={view.revoked === true ? "No revoked links" : "No shared links yet"}>Share a session from its page to get a link.</EmptyState>
      ) : (
        <ListCard label="Shared links" testId="shared-links" dimmed={query.isPlaceholderData}>
          {links.map((link) => (
            <LinkRow
              key={link.id}
              link={link}
              busy={busyId === link.sessionId}
              onRevoke={() => revoke.mutate({ sessionId: link.sessionId })}
              onShareAgain={() => reshare.mutate({ sessionId: link.sessionId })}
            />
          ))}
        </ListCard>
      )}

      <LoadMore query={query} />
    </div>
  );
}

function LinkRow({ link, busy, onRevoke, onShareAgain }: { link: SharedLink; busy: boolean; onRevoke: () => void; onShareAgain: () => void }) {
  const revoked = link.revoked !== undefined;
  return (
    <li
      data-testid="shared-link"
      data-share-id={link.id}
      data-state={revoked ? "revoked" : "active"}
      className="flex flex-col gap-2 px-4 py-3.5 sm:flex-row sm:items-center sm:gap-6 sm:px-5"
    >
      <div className="min-w-0 flex-1">
        <div className="flex items-center gap-2">
          {link.parentId ? <ChildMark /> : null}
          <Link href={`/sessions/${link.sessionId}`} className="truncate font-medium text-zinc-900 hover:text-indigo-600">
            {link.title}
          </Link>
          {revoked ? <Badge tone="red">Revoked</Badge> : <Badge tone="green">Active</Badge>}
        </div>
        <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-500">
          {revoked ? (
            <span data-testid="shared-link-url" className="truncate font-mono text-zinc-400 line-through">
              {link.url}
            </span>
          ) : (
            <a data-testid="shared-link-url" href={link.url} target="_blank" rel="noopener noreferrer" className="truncate font-mono text-indigo-600 hover:text-indigo-800">
              {link.url}
            </a>
          )}
          <span>
            Shared <RelativeTime time={link.created} />
          </span>
          {link.revoked !== undefined ? (
            <span>
              Revoked <RelativeTime time={link.revoked} />
            </span>
          ) : null}
        </div>
      </div>
      <div className="shrink-0">
        {revoked ? (
          <Button size="sm" onClick={onShareAgain} disabled={busy} title="The revoked link stays dead; the session gets a new link.">
            {busy ? <Spinner className="size-3.5" /> : null}
            Share with a new link
          </Button>
        ) : (
          <Button size="sm" variant="ghost" className="text-red-600 hover:bg-red-50 hover:text-red-700" onClick={onRevoke} disabled={busy}>
            {busy ? <Spinner className="size-3.5" /> : null}
            Revoke
          </Button>
        )}
      </div>
    </li>
  );
}
