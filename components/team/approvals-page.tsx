"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useId, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState, ErrorLine, ErrorNotice, Loading, errorMessage } from "@/components/ui/feedback";
import { RelativeTime } from "@/components/ui/relative-time";
import type { AppRouter } from "@/server/trpc/router";

/** One stored "Always allow" answer, as `permission.approvals` returns it. */
type Approval = inferRouterOutputs<AppRouter>["permission"]["approvals"][number];

/** The value of the project filter that shows every project. */
const ALL = "";

/**
 * The team's stored "Always allow" answers, newest first: what each allows (the exact
 * pattern), where, for which agent, who granted it and when. Every member sees them;
 * owners and admins revoke them, after which the next matching call asks again.
 */
export function ApprovalsPage({ canRevoke }: { canRevoke: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [projectId, setProjectId] = useState(ALL);
  const [confirming, setConfirming] = useState<Approval>();
  const approvals = useQuery({
    ...trpc.permission.approvals.queryOptions(projectId === ALL ? {} : { projectId }),
    placeholderData: keepPreviousData,
  });
  const revoke = useMutation(
    trpc.permission.revoke.mutationOptions({
      onSuccess: (_result, { approvalId }) => {
        // The row goes at once, in every filter; the lists are then read again.
        queryClient.setQueriesData<Approval[]>({ queryKey: trpc.permission.approvals.pathKey() }, (list) => list?.filter((a) => a.id !== approvalId));
        void queryClient.invalidateQueries({ queryKey: trpc.permission.approvals.pathKey() });
        setConfirming(undefined);
      },
    }),
  );
  const list = approvals.data ?? [];

  return (
    <div className="space-y-6">
      <ApprovalsHeader canRevoke={canRevoke} projectId={projectId} onProject={setProjectId} />

      {approvals.isPending ? (
        <Loading label="Loading approvals…" />
      ) : approvals.isError ? (
        <ErrorNotice title="Could not load the approvals">{errorMessage(approvals.error)}</ErrorNotice>
      ) : list.length === 0 ? (
        <div data-testid="approvals-empty">
          <EmptyState title={projectId === ALL ? "No approvals" : "No approvals in this project"}>
            When someone answers “Always allow” to a permission question, what it allows is listed here.
          </EmptyState>
        </div>
      ) : (
        <ApprovalsTable list={list} faded={approvals.isPlaceholderData} onRevoke={canRevoke ? setConfirming : undefined} />
      )}

      <RevokeDialog
        approval={confirming}
        pending={revoke.isPending}
        error={revoke.error}
        onConfirm={(approval) => revoke.mutate({ approvalId: approval.id })}
        onCancel={() => {
          setConfirming(undefined);
          revoke.reset();
        }}
      />
    </div>
  );
}

/** The page's title, what it lists, and the project filter. */
function ApprovalsHeader({ canRevoke, projectId, onProject }: { canRevoke: boolean; projectId: string; onProject: (projectId: string) => void }) {
  const trpc = useTRPC();
  const filterId = useId();
  const projects = useQuery(trpc.project.list.queryOptions());
  return (
    <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
      <div>
        <p className="text-sm">
          <Link href="/team" className="font-medium text-indigo-600 hover:text-indigo-800">
            ← Team
          </Link>
        </p>
        <h1 className="mt-1 text-2xl font-semibold tracking-tight text-zinc-900">Approvals</h1>
        <p className="mt-1 max-w-2xl text-sm text-zinc-500">
          What “Always allow” answers in sessions have allowed, for the whole team, in one project each.{" "}
          {canRevoke ? "Revoking one makes the next matching call ask again." : "Only the team’s owners and admins can revoke them."}
        </p>
      </div>
      <div className="flex items-center gap-2">
        <label htmlFor={filterId} className="text-sm font-medium text-zinc-700">
          Project
        </label>
        <select
          id={filterId}
          data-testid="approvals-project-filter"
          value={projectId}
          onChange={(event) => onProject(event.target.value)}
          className="h-9 rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600"
        >
          <option value={ALL}>All projects</option>
          {(projects.data ?? []).map((project) => (
            <option key={project.id} value={project.id}>
              {project.name}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}

const COLUMNS = ["Project", "Agent", "Permission", "Pattern", "Granted by", "When"];

/** The approvals, newest first, each revocable when `onRevoke` is given. */
function ApprovalsTable({ list, faded, onRevoke }: { list: Approval[]; faded: boolean; onRevoke: ((approval: Approval) => void) | undefined }) {
  const canRevoke = onRevoke !== undefined;
  return (
    <div className={`overflow-x-auto rounded-2xl bg-white shadow-sm ring-1 ring-zinc-200 transition-opacity ${faded ? "opacity-60" : ""}`}>
      <table data-testid="approvals" className="min-w-full divide-y divide-zinc-100 text-left text-sm">
        <caption className="sr-only">Stored “Always allow” approvals, newest first</caption>
        <thead className="bg-zinc-50 text-xs font-semibold tracking-wide text-zinc-500 uppercase">
          <tr>
            {COLUMNS.map((column) => (
              <th key={column} scope="col" className="px-4 py-2.5">
                {column}
              </th>
            ))}
            {canRevoke ? (
              <th scope="col" className="px-4 py-2.5">
                <span className="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {list.map((approval) => (
            <ApprovalRow key={approval.id} approval={approval} onRevoke={onRevoke ? () => onRevoke(approval) : undefined} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Asks before revoking `approval` (none: closed). */
function RevokeDialog({ approval, pending, error, onConfirm, onCancel }: { approval: Approval | undefined; pending: boolean; error: unknown; onConfirm: (approval: Approval) => void; onCancel: () => void }) {
  return (
    <ConfirmDialog
      open={approval !== undefined}
      title="Revoke this approval?"
      confirmLabel="Revoke"
      pending={pending}
      onConfirm={() => {
        if (approval) onConfirm(approval);
      }}
      onCancel={onCancel}
    >
      {approval ? (
        <p>
          <span className="font-mono">{approval.permission}</span> for <code className="font-mono break-all">{approval.pattern}</code> in{" "}
          <span className="font-medium text-zinc-900">{approval.projectName}</span> will ask again the next time the agent needs it.
        </p>
      ) : null}
      <ErrorLine error={error} what="Could not revoke" className="mt-2 text-red-600" />
    </ConfirmDialog>
  );
}

function ApprovalRow({ approval, onRevoke }: { approval: Approval; onRevoke?: () => void }) {
  return (
    <tr data-testid="approval" data-approval-id={approval.id} data-permission={approval.permission} data-pattern={approval.pattern} className="align-top">
      <td className="px-4 py-3 font-medium text-zinc-900">{approval.projectName}</td>
      <td className="px-4 py-3 text-zinc-700">{approval.agent}</td>
      <td className="px-4 py-3">
        <Badge>{approval.permission}</Badge>
      </td>
      <td className="px-4 py-3">
        <code data-testid="approval-pattern" className="font-mono text-[12.5px] break-all whitespace-pre-wrap text-zinc-800">
          {approval.pattern}
        </code>
      </td>
      <td className="px-4 py-3">
        <span data-testid="approval-granted-by" className={approval.grantedBy ? "text-zinc-700" : "text-zinc-400 italic"}>
          {approval.grantedBy?.name ?? "unknown"}
        </span>
        {approval.byAdmin ? (
          <span data-testid="approval-by-admin" title="Granted by an owner or admin: it also answers the questions the team's policy asks" className="ml-1.5 text-xs text-zinc-500">
            (admin — also past policy questions)
          </span>
        ) : null}
      </td>
      <td className="px-4 py-3 whitespace-nowrap text-zinc-500">
        <RelativeTime time={approval.createdAt} />
      </td>
      {onRevoke ? (
        <td className="px-4 py-1.5 text-right">
          <Button
            size="sm"
            variant="ghost"
            className="text-red-600 hover:bg-red-50 hover:text-red-700"
            aria-label={`Revoke ${approval.permission} ${approval.pattern} in ${approval.projectName}`}
            onClick={onRevoke}
          >
            Revoke
          </Button>
        </td>
      ) : null}
    </tr>
  );
}
