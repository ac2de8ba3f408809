"use client";

import { useQuery } from "@tanstack/react-query";
import { createContext, useContext, useState } from "react";
import { Icon } from "@/components/parts/icons";
import { UnifiedDiff } from "@/components/parts/diff-view";
import { useTRPC } from "@/components/trpc/client";
import { ErrorNotice, Spinner, errorMessage } from "@/components/ui/feedback";
import { TurnDiffFiles, TurnDiffHeading, type TurnFiles } from "./turn-diff-summary";
import type { UserMessage } from "./types";

/**
 * Where the diff of a turn is read from: a member's session (`message.diff`) or a share
 * link (`share.diff`, secret files left out). Given by the session page and the share page.
 */
export type DiffSource = { kind: "member"; sessionId: string } | { kind: "viewer"; shareId: string; sessionId?: string | undefined };

export const DiffSourceContext = createContext<DiffSource | undefined>(undefined);

/** What a user message's turn changed: its files with added/removed lines, and the diff on request. */
export function TurnDiff({ info }: { info: UserMessage }) {
  const source = useContext(DiffSourceContext);
  const [open, setOpen] = useState(false);
  const diffs = info.summary?.diffs ?? [];
  if (!source || diffs.length === 0) return null;
  return (
    <div className="mt-2 overflow-hidden rounded-xl border border-zinc-200 bg-white" data-testid="turn-diff">
      <button
        type="button"
        aria-expanded={open}
        onClick={() => setOpen((value) => !value)}
        className="flex w-full items-center gap-2 px-3 py-2 text-left text-sm hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        <TurnDiffHeading files={diffs} />
        <Icon name="chevron" className={`ml-auto size-4 text-zinc-400 transition-transform ${open ? "rotate-90" : ""}`} />
      </button>
      {open ? <TurnDiffBody source={source} messageId={info.id} files={diffs} /> : null}
    </div>
  );
}

function TurnDiffBody({ source, messageId, files }: { source: DiffSource; messageId: string; files: TurnFiles }) {
  const trpc = useTRPC();
  const member = useQuery({
    ...trpc.message.diff.queryOptions({ sessionId: source.kind === "member" ? source.sessionId : "", messageId }),
    enabled: source.kind === "member",
  });
  const viewer = useQuery({
    ...trpc.share.diff.queryOptions({ shareId: source.kind === "viewer" ? source.shareId : "", sessionId: source.kind === "viewer" ? source.sessionId : undefined, messageId }),
    enabled: source.kind === "viewer",
  });
  const query = source.kind === "member" ? member : viewer;
  return (
    <div className="space-y-2 border-t border-zinc-100 p-3">
      <TurnDiffFiles files={files} />
      {query.isPending ? (
        <p className="flex items-center gap-2 text-xs text-zinc-500">
          <Spinner className="size-3" /> Loading the diff…
        </p>
      ) : query.isError ? (
        <ErrorNotice title="Could not load the diff">{errorMessage(query.error)}</ErrorNotice>
      ) : query.data.text ? (
        <div data-testid="turn-diff-text">
          <UnifiedDiff diff={query.data.text} headers />
          {query.data.truncated ? <p className="mt-1 text-xs text-zinc-500">The diff is cut here: it is very long.</p> : null}
        </div>
      ) : (
        <p className="text-xs text-zinc-500">No diff to show.</p>
      )}
    </div>
  );
}
