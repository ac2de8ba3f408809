"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useEffect, useId, useRef, useState } from "react";
import { UnifiedDiff } from "@/components/parts/diff-view";
import { Icon } from "@/components/parts/icons";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Spinner, errorMessage } from "@/components/ui/feedback";
import type { AppRouter } from "@/server/trpc/router";
import { parleyCode, splitPatch, statusBadge, workState } from "./view";
import { WorkspaceActions } from "./workspace-actions";

type Outputs = inferRouterOutputs<AppRouter>["workspace"];
type Status = Outputs["status"];
type DiffFile = Outputs["diff"]["files"][number];

/**
 * The session header's "Changes" button and its panel: the session's branch, its whole diff
 * against the base, and getting the work out (commit, push or merge, update from the base,
 * a patch to download). Nothing shows for a session made before workspaces (NOT_FOUND).
 * Its figures are read again when the agent goes idle, when `revision` (what a revert
 * changed) changes, and when the panel opens.
 */
export function ChangesButton({ sessionId, projectId, busy, revision }: { sessionId: string; projectId: string; busy: boolean; revision: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const status = useQuery({
    ...trpc.workspace.status.queryOptions({ sessionId }),
    retry: (count, error) => parleyCode(error) !== "NOT_FOUND" && count < 2,
  });
  const seen = useRef({ busy, revision });
  useEffect(() => {
    const before = seen.current;
    if ((before.busy && !busy) || before.revision !== revision) void queryClient.invalidateQueries({ queryKey: trpc.workspace.pathKey() });
    seen.current = { busy, revision };
  }, [busy, revision, queryClient, trpc]);
  if (!status.data) return null;
  const changes = status.data.changes;
  return (
    <>
      <Button size="sm" data-testid="changes-button" aria-expanded={open} onClick={() => {
          if (!open) void queryClient.invalidateQueries({ queryKey: trpc.workspace.pathKey() });
          setOpen(!open);
        }}
      >
        <Icon name="diff" className="size-4 text-emerald-600" />
        Changes
        {changes.files > 0 ? (
          <span className="font-mono text-xs">
            <span className="text-emerald-600">+{changes.additions}</span> <span className="text-red-600">−{changes.deletions}</span>
          </span>
        ) : null}
      </Button>
      {open ? <ChangesPanel status={status.data} projectId={projectId} busy={busy} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function ChangesPanel({ status, projectId, busy, onClose }: { status: Status; projectId: string; busy: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const titleId = useId();
  const projects = useQuery(trpc.project.list.queryOptions());
  const target = projects.data?.find((project) => project.id === projectId)?.defaultBranch ?? status.baseBranch;
  const state = workState(statusBadge(status));
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  return (
    // Not modal: the chat stays usable beside it — below the app's header, and on wide
    // screens the page moves aside for it (app/(members)/layout.tsx, `data-changes-open`). On phones
    // it covers the screen until closed.
    <aside
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      data-testid="changes-panel"
      data-changes-open
      className="fixed inset-y-0 right-0 z-40 flex w-full flex-col bg-white shadow-2xl ring-1 ring-zinc-200 sm:top-14 sm:w-[32rem]"
    >
      <header className="flex items-start gap-3 border-b border-zinc-200 px-4 py-3">
        <div className="min-w-0 flex-1 space-y-1">
          <h2 id={titleId} className="text-base font-semibold text-zinc-900">
            Changes
          </h2>
          <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-500">
            <code data-testid="changes-branch" className="max-w-full truncate rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-zinc-800" title={status.branch}>
              {status.branch}
            </code>
            <span data-testid="changes-state" data-state={state.key} title={state.title}>
              <Badge tone={state.tone}>{state.label}</Badge>
            </span>
            <span>
              from <span className="font-mono">{status.baseBranch}</span>
            </span>
          </div>
        </div>
        <Button size="sm" variant="ghost" aria-label="Close the changes" onClick={onClose}>
          <Icon name="x" className="size-4" />
        </Button>
      </header>
      <div className="flex-1 space-y-4 overflow-y-auto px-4 py-4">
        <Body status={status} target={target} busy={busy} />
      </div>
    </aside>
  );
}

function Body({ status, target, busy }: { status: Status; target: string; busy: boolean }) {
  // While the agent works its first tool may be making the tree: the panel says the agent works, as for a made one.
  if (status.state === "pending" && !busy) return <p className="text-sm text-zinc-600">The workspace is made when the agent first needs the project&apos;s files: nothing changed yet.</p>;
  if (status.state === "failed") {
    return (
      <p role="alert" className="text-sm text-red-700">
        The workspace could not be made{status.error ? `: ${status.error}` : "."}
      </p>
    );
  }
  if (status.state === "removed") return <p className="text-sm text-zinc-600">This session&apos;s working tree was removed; its branch {status.branch} stays in the project.</p>;
  return (
    <>
      {busy || !status.live ? (
        <p data-testid="changes-busy" className="flex items-center gap-2 rounded-lg bg-sky-50 px-3 py-2 text-sm text-sky-800">
          <Spinner className="size-3.5" /> The agent is working: the changes are shown once it is idle.
        </p>
      ) : null}
      <Summary status={status} />
      <WorkspaceActions status={status} target={target} busy={busy} />
      <DiffSection sessionId={status.sessionId} busy={busy} head={`${status.head ?? ""}:${status.changes.files}:${status.changes.additions}:${status.changes.deletions}`} />
    </>
  );
}

function Summary({ status }: { status: Status }) {
  const { files, additions, deletions } = status.changes;
  return (
    <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm sm:grid-cols-4" data-testid="changes-summary">
      <div>
        <dt className="text-xs text-zinc-500">Files</dt>
        <dd className="tabular-nums">{files}</dd>
      </div>
      <div>
        <dt className="text-xs text-zinc-500">Lines</dt>
        <dd className="font-mono">
          <span className="text-emerald-600">+{additions}</span> <span className="text-red-600">−{deletions}</span>
        </dd>
      </div>
      <div>
        <dt className="text-xs text-zinc-500">Commits</dt>
        <dd className="tabular-nums" data-testid="changes-commits">
          {status.commits}
        </dd>
      </div>
      <div>
        <dt className="text-xs text-zinc-500">Uncommitted</dt>
        <dd>{status.uncommitted ? "yes" : "no"}</dd>
      </div>
    </dl>
  );
}

/** The session's whole diff against its base, per file, each patch opened on request. */
function DiffSection({ sessionId, busy, head }: { sessionId: string; busy: boolean; head: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const diff = useQuery({
    ...trpc.workspace.diff.queryOptions({ sessionId }),
    enabled: !busy,
    retry: (count, error) => parleyCode(error) !== "BUSY" && count < 2,
  });
  // A new commit or other figures in the status: the diff is read again.
  const seen = useRef(head);
  useEffect(() => {
    if (seen.current !== head) void queryClient.invalidateQueries({ queryKey: trpc.workspace.diff.queryKey({ sessionId }) });
    seen.current = head;
  }, [head, queryClient, trpc, sessionId]);
  if (busy) return null;
  if (diff.isPending) {
    return (
      <p className="flex items-center gap-2 text-sm text-zinc-500">
        <Spinner className="size-3.5" /> Loading the diff…
      </p>
    );
  }
  if (diff.isError) {
    return parleyCode(diff.error) === "BUSY" ? (
      <p data-testid="changes-busy" className="rounded-lg bg-sky-50 px-3 py-2 text-sm text-sky-800">
        The agent is working: the diff shows once it is idle.
      </p>
    ) : (
      <p role="alert" className="text-sm text-red-700">
        Could not load the diff: {errorMessage(diff.error)}
      </p>
    );
  }
  if (diff.data.files.length === 0) return <p className="text-sm text-zinc-500" data-testid="changes-empty">No changes against the base.</p>;
  const pieces = splitPatch(diff.data.text, diff.data.files.map((file) => file.file));
  return (
    <section aria-label="Changed files" className="space-y-2">
      <ul className="divide-y divide-zinc-100 overflow-hidden rounded-xl ring-1 ring-zinc-200" data-testid="changes-files">
        {diff.data.files.map((file) => (
          <FileRow key={file.file} file={file} patch={pieces.get(file.file)} />
        ))}
      </ul>
      {diff.data.truncated ? <p className="text-xs text-zinc-500">The diff is cut here: it is very long. Download it to see all of it.</p> : null}
    </section>
  );
}

const STATUS_LABEL: Record<DiffFile["status"], string | undefined> = { modified: undefined, added: "added", deleted: "deleted", "type-changed": "type changed" };

function FileRow({ file, patch }: { file: DiffFile; patch: string | undefined }) {
  const [open, setOpen] = useState(false);
  const label = STATUS_LABEL[file.status];
  return (
    <li data-testid="changes-file" data-file={file.file}>
      <button
        type="button"
        aria-expanded={open}
        onClick={() => setOpen((value) => !value)}
        className="flex w-full items-center gap-2 px-3 py-2 text-left text-sm hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        <Icon name="chevron" className={`size-4 shrink-0 text-zinc-400 transition-transform ${open ? "rotate-90" : ""}`} />
        <span className="min-w-0 flex-1 truncate font-mono text-xs text-zinc-800" title={file.file}>
          {file.file}
        </span>
        {label ? <span className="rounded bg-zinc-200/70 px-1.5 text-[11px] text-zinc-700">{label}</span> : null}
        <span className="shrink-0 font-mono text-xs">
          <span className="text-emerald-600">+{file.additions}</span> <span className="text-red-600">−{file.deletions}</span>
        </span>
      </button>
      {open ? (
        <div className="px-3 pb-3" data-testid="changes-file-diff">
          {patch ? <UnifiedDiff diff={patch} /> : <p className="text-xs text-zinc-500">No text diff to show for this file (binary, or past the cut).</p>}
        </div>
      ) : null}
    </li>
  );
}
