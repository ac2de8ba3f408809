import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { formatCost } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";

/** A child session as the list shows it. */
export interface ChildSession {
  id: string;
  title: string;
  cost: number;
  time: { updated: number; archived?: number | undefined };
}

/**
 * Sessions started from one session (subagents), for a member's session page
 * (children-list.tsx) and a share page (rendered on the server): `href` is where each
 * one opens. Plain markup.
 */
export function ChildSessions({ sessions, href, headingId, testId }: { sessions: ChildSession[]; href: (sessionId: string) => string; headingId: string; testId: string }) {
  return (
    <section aria-labelledby={headingId} className="rounded-2xl bg-white p-4 shadow-sm ring-1 ring-zinc-200">
      <h2 id={headingId} className="text-sm font-semibold text-zinc-900">
        Child sessions <span className="font-normal text-zinc-400">{sessions.length}</span>
      </h2>
      <ul data-testid={testId} className="mt-2 divide-y divide-zinc-100">
        {sessions.map((child) => (
          <li key={child.id} className="flex items-center gap-3 py-2 text-sm">
            <span className="text-zinc-300" aria-hidden="true">
              ↳
            </span>
            <Link href={href(child.id)} className="min-w-0 flex-1 truncate font-medium text-zinc-800 hover:text-indigo-600">
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
