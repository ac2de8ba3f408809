"use client";

import Link from "next/link";
import type { Status } from "@/components/chat/types";
import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/feedback";
import { type Seen, isUnread } from "./seen";
import type { SidebarProject, SidebarSession } from "./use-sidebar";

interface TreeProps {
  projects: readonly SidebarProject[];
  /** The session open now. */
  current: string | undefined;
  statuses: ReadonlyMap<string, Status>;
  seen: Seen;
}

/** The team's recent sessions by project, each session's children nested under it. */
export function SidebarTree({ projects, current, statuses, seen }: TreeProps) {
  if (projects.length === 0) return <p className="px-3 py-2 text-sm text-zinc-500">No sessions yet.</p>;
  return (
    <div className="space-y-4">
      {projects.map((project) => (
        <section key={project.id} aria-label={`Project ${project.name}`} data-testid="sidebar-project" data-project-id={project.id}>
          <h3 className="truncate px-3 text-xs font-semibold tracking-wide text-zinc-500 uppercase">{project.name}</h3>
          <ul className="mt-1 space-y-0.5">
            {project.sessions.map((session) => (
              <SidebarNode key={session.id} session={session} current={current} statuses={statuses} seen={seen} />
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function SidebarNode({ session, current, statuses, seen }: { session: SidebarSession } & Omit<TreeProps, "projects">) {
  const here = session.id === current;
  const unread = isUnread(seen, session, current);
  const status = statuses.get(session.id) ?? session.status;
  return (
    <li data-testid="sidebar-session" data-session-id={session.id} data-unread={unread || undefined}>
      <Link
        href={`/sessions/${session.id}`}
        aria-current={here ? "page" : undefined}
        className={`block rounded-lg px-3 py-1.5 text-sm hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-600 ${here ? "bg-indigo-50 text-indigo-900" : "text-zinc-800"}`}
      >
        <span className="flex items-center gap-1.5">
          {unread ? (
            <span data-testid="sidebar-unread" className="size-2 shrink-0 rounded-full bg-indigo-600">
              <span className="sr-only">New activity: </span>
            </span>
          ) : null}
          <span className={`min-w-0 flex-1 truncate ${unread ? "font-semibold" : "font-medium"}`}>{session.title}</span>
          <StateBadge status={status} waiting={session.waiting} failed={session.failed} />
        </span>
        {session.workspace && !session.parentId ? (
          <span data-testid="sidebar-branch" title={`Branch ${session.workspace.branch}`} className="mt-0.5 block truncate font-mono text-[0.7rem] text-zinc-500">
            {session.workspace.branch}
          </span>
        ) : null}
      </Link>
      {session.children.length > 0 ? (
        <ul aria-label={`Child sessions of ${session.title}`} data-testid="sidebar-children" className="ml-4 border-l border-zinc-200 pl-1">
          {session.children.map((child) => (
            <SidebarNode key={child.id} session={child} current={current} statuses={statuses} seen={seen} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** Waiting for approval first (someone must act), then working, then failed. */
function StateBadge({ status, waiting, failed }: { status: Status; waiting: boolean; failed: boolean }) {
  if (waiting) {
    return (
      <Badge tone="amber" data-testid="sidebar-badge" data-state="waiting">
        Needs approval
      </Badge>
    );
  }
  if (status.type !== "idle") {
    return (
      <Badge tone="blue" data-testid="sidebar-badge" data-state="working">
        <Spinner className="size-3" />
        {status.type === "retry" ? "Retrying" : "Working"}
      </Badge>
    );
  }
  if (failed) {
    return (
      <Badge tone="red" data-testid="sidebar-badge" data-state="failed">
        Failed
      </Badge>
    );
  }
  return null;
}
