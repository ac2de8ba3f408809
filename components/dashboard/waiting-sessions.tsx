"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { RelativeTime } from "@/components/ui/relative-time";

/**
 * The team's sessions waiting for someone to answer a permission question, the longest
 * waiting first, above the dashboard's table (re-read with it on the team's events).
 * Nothing is shown while none waits.
 */
export function WaitingSessions() {
  const trpc = useTRPC();
  const waiting = useQuery(trpc.dashboard.waiting.queryOptions());
  const items = waiting.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <section aria-labelledby="waiting-heading" data-testid="waiting-sessions" className="rounded-2xl border border-amber-200 bg-amber-50 px-4 py-3">
      <h2 id="waiting-heading" className="text-sm font-semibold text-amber-900">
        Waiting for approval ({items.length})
      </h2>
      <ul className="mt-2 space-y-1.5">
        {items.map(({ session, author, project }) => (
          <li key={session.id} data-testid="waiting-session" data-session-id={session.id} className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
            <Badge tone="amber">Needs approval</Badge>
            <Link href={`/sessions/${session.id}`} className="font-medium break-words text-zinc-900 hover:text-indigo-600">
              {session.title}
            </Link>
            <span className="text-xs text-zinc-600">
              {project.name} · {author.name} · updated <RelativeTime time={session.time.updated} />
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
