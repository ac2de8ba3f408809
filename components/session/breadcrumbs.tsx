"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";
import type { SessionInfo } from "./types";

const MAX_DEPTH = 8;

/** Sessions / …ancestors / this session. */
export function Breadcrumbs({ session }: { session: SessionInfo }) {
  return (
    <nav aria-label="Breadcrumb" className="min-w-0">
      <ol className="flex min-w-0 flex-wrap items-center gap-1.5 text-sm text-zinc-500">
        <li>
          <Link href="/" className="hover:text-zinc-900">
            Sessions
          </Link>
        </li>
        {session.parentId ? <Ancestor sessionId={session.parentId} depth={1} /> : null}
        <Separator />
        <li aria-current="page" className="max-w-[20rem] truncate font-medium text-zinc-700">
          {session.title}
        </li>
      </ol>
    </nav>
  );
}

/** One ancestor, preceded by its own ancestors (each fetched by its own query). */
function Ancestor({ sessionId, depth }: { sessionId: string; depth: number }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.session.get.queryOptions({ sessionId }));
  const parentId = query.data?.parentId;
  return (
    <>
      {parentId && depth < MAX_DEPTH ? <Ancestor sessionId={parentId} depth={depth + 1} /> : null}
      <Separator />
      <li className="max-w-[16rem] truncate">
        <Link href={`/sessions/${sessionId}`} data-testid={depth === 1 ? "breadcrumb-parent" : "breadcrumb-ancestor"} className="hover:text-zinc-900">
          {query.data?.title ?? (query.isError ? "Parent session" : "…")}
        </Link>
      </li>
    </>
  );
}

function Separator() {
  return (
    <li aria-hidden="true" className="text-zinc-300">
      /
    </li>
  );
}
