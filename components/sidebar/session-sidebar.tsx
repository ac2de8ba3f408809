"use client";

import Link from "next/link";
import { useParams } from "next/navigation";
import { type ReactNode, useEffect, useState } from "react";
import { ErrorNotice, Loading, errorMessage } from "@/components/ui/feedback";
import { Drawer } from "@/components/ui/drawer";
import { useSidebarCollapsed } from "./collapsed";
import { useSeen } from "./seen";
import { SidebarSearch } from "./sidebar-search";
import { SidebarTree } from "./sidebar-tree";
import { type SidebarData, type SidebarSession, useSidebar } from "./use-sidebar";

const ICON_BUTTON = "grid size-8 place-items-center rounded-lg text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-600";

/**
 * The session sidebar (issue 33, point 2), beside every session page: on wide screens a
 * column at the left that collapses to a rail (remembered in this browser), on narrower
 * ones a drawer opened by a "Sessions" button. The session open now is marked, and seen.
 */
export function SessionSidebar({ viewerId }: { viewerId: string | undefined }) {
  const params = useParams<{ sessionId?: string }>();
  const current = params.sessionId;
  const { data, error, statuses } = useSidebar();
  const { seen, mark } = useSeen(viewerId);
  const [collapsed, setCollapsed] = useSidebarCollapsed();

  // The session open now is seen up to its latest change the sidebar knows.
  const open = data && current ? find(data, current) : undefined;
  useEffect(() => {
    if (open) mark(open.id, open.updated);
  }, [open?.id, open?.updated, open, mark]);

  const body = (
    <SidebarSearch current={current}>
      {error ? (
        <ErrorNotice title="Could not load sessions">{errorMessage(error)}</ErrorNotice>
      ) : data ? (
        <>
          <SidebarTree projects={data.projects} current={current} statuses={statuses} seen={seen} />
          <Link href="/" className="mt-4 block rounded-lg px-3 py-1.5 text-sm font-medium text-indigo-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-600">
            All sessions
          </Link>
        </>
      ) : (
        <Loading label="Loading sessions…" />
      )}
    </SidebarSearch>
  );

  return (
    <>
      {collapsed ? (
        <div data-sidebar-collapsed className="fixed top-[calc(3.5rem+1px)] bottom-0 left-0 z-20 hidden w-10 flex-col items-center border-r border-zinc-200 bg-white pt-3 lg:flex">
          <button type="button" onClick={() => setCollapsed(false)} aria-expanded={false} aria-controls="session-sidebar" className={ICON_BUTTON}>
            <span className="sr-only">Show sessions</span>
            <Chevron direction="right" />
          </button>
        </div>
      ) : (
        <nav
          id="session-sidebar"
          aria-label="Sessions"
          data-sidebar-open
          data-testid="session-sidebar"
          className="fixed top-[calc(3.5rem+1px)] bottom-0 left-0 z-20 hidden w-64 flex-col border-r border-zinc-200 bg-white lg:flex"
        >
          <div className="flex items-center justify-between px-3 pt-3 pb-2">
            <h2 className="text-sm font-semibold text-zinc-900">Sessions</h2>
            <button type="button" onClick={() => setCollapsed(true)} aria-expanded={true} aria-controls="session-sidebar" className={ICON_BUTTON}>
              <span className="sr-only">Hide sessions</span>
              <Chevron direction="left" />
            </button>
          </div>
          <div className="flex-1 overflow-y-auto px-1 pb-4">{body}</div>
        </nav>
      )}
      <SidebarDrawer>{body}</SidebarDrawer>
    </>
  );
}

/** At phone and tablet widths: a "Sessions" button opening the list in a drawer from the left (drawer.tsx), closed by a choice. */
function SidebarDrawer({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        aria-haspopup="dialog"
        aria-expanded={open}
        data-testid="sidebar-drawer-button"
        className="mb-2 inline-flex h-7 items-center gap-1.5 rounded-lg px-2 text-xs font-medium text-zinc-700 ring-1 ring-zinc-200 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-600 lg:hidden"
      >
        <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className="size-4">
          <path fillRule="evenodd" clipRule="evenodd" d="M2 4.75A.75.75 0 0 1 2.75 4h14.5a.75.75 0 0 1 0 1.5H2.75A.75.75 0 0 1 2 4.75zM2 10a.75.75 0 0 1 .75-.75h7.5a.75.75 0 0 1 0 1.5h-7.5A.75.75 0 0 1 2 10zm0 5.25a.75.75 0 0 1 .75-.75h14.5a.75.75 0 0 1 0 1.5H2.75a.75.75 0 0 1-.75-.75z" />
        </svg>
        Sessions
      </button>
      <Drawer open={open} onClose={() => setOpen(false)} side="left" testId="sidebar-drawer">
        {(titleId) => (
          <nav aria-labelledby={titleId} className="flex min-h-full flex-col gap-3 p-3">
            <div className="flex items-center justify-between">
              <h2 id={titleId} className="text-sm font-semibold text-zinc-900">
                Sessions
              </h2>
              <button type="button" onClick={() => setOpen(false)} className={ICON_BUTTON}>
                <span className="sr-only">Close sessions</span>
                <Chevron direction="left" />
              </button>
            </div>
            {children}
          </nav>
        )}
      </Drawer>
    </>
  );
}

function find(data: SidebarData, id: string): SidebarSession | undefined {
  const walk = (sessions: readonly SidebarSession[]): SidebarSession | undefined => {
    for (const session of sessions) {
      if (session.id === id) return session;
      const found = walk(session.children);
      if (found) return found;
    }
    return undefined;
  };
  for (const project of data.projects) {
    const found = walk(project.sessions);
    if (found) return found;
  }
  return undefined;
}

function Chevron({ direction }: { direction: "left" | "right" }) {
  return (
    <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className={`size-4 ${direction === "right" ? "rotate-180" : ""}`}>
      <path fillRule="evenodd" clipRule="evenodd" d="M12.79 5.23a.75.75 0 0 1-.02 1.06L8.832 10l3.938 3.71a.75.75 0 1 1-1.04 1.08l-4.5-4.25a.75.75 0 0 1 0-1.08l4.5-4.25a.75.75 0 0 1 1.06.02z" />
    </svg>
  );
}
