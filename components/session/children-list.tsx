"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { formatCost } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";

/** Sessions started from this one (subagents), newest first. Hidden when there are none. */
export function ChildrenList({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const children = useQuery(trpc.session.children.queryOptions({ sessionId }));
  const list = children.data ?? [];
  if (list.length === 0) return null;
  return (
    <section aria-labelledby="children-heading" className="rounded-2xl bg-white p-4 shadow-sm ring-1 ring-zinc-200">
      <h2 id="children-heading" className="text-sm font-semibold text-zinc-900">
        Child sessions <span className="font-normal text-zinc-400">{list.length}</span>
      </h2>
      <ul data-testid="children-list" className="mt-2 divide-y divide-zinc-100">
        {list.map((child) => (
          <li key={child.id} className="flex items-center gap-3 py-2 text-sm">
            <span className="text-zinc-300" aria-hidden="true">
              ↳
            </span>
            <Link href={`/sessions/${child.id}`} className="min-w-0 flex-1 truncate font-medium text-zinc-800 hover:text-indigo-600">
              {child.title}
            </Link>
            {child.time.archived ? <Badge>Archived</Badge> : null}
            <span className="hidden text-xs text-zinc-500 sm:inline">
              <RelativeTime time={child.time.updated} />
            </span>
            <span className="font-mono text-xs text-zinc-600">{formatCost(child.cost)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
