"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { takeDeferredShortcut } from "@/components/ui/deferred-shortcut";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { ErrorLine, Spinner } from "@/components/ui/feedback";

/**
 * Creates a session in the chosen project and opens it. The team's first project is
 * preselected; with none yet, a link leads to the team page, where admins add one. In a git
 * project the session's branch starts from the default branch, or from one picked here.
 */
export function NewSessionButton() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const projects = useQuery(trpc.project.list.queryOptions());
  const [chosen, setChosen] = useState<string>();
  const [branchChoice, setBranchChoice] = useState<{ projectId: string; branch: string }>();
  const projectId = chosen ?? projects.data?.[0]?.id;
  const project = projects.data?.find((p) => p.id === projectId);
  const defaultBranch = project?.defaultBranch ?? undefined;
  const branches = useQuery({ ...trpc.project.branches.queryOptions({ projectId: projectId ?? "" }), enabled: Boolean(projectId && defaultBranch) });
  const branch = branchChoice && branchChoice.projectId === projectId ? branchChoice.branch : defaultBranch;
  // The default branch is what the server takes when none is sent.
  const baseBranch = branch && branch !== defaultBranch ? branch : undefined;
  const create = useMutation(
    trpc.session.create.mutationOptions({
      onSuccess: (info) => {
        void queryClient.invalidateQueries({ queryKey: trpc.session.list.pathKey() });
        queryClient.setQueryData(trpc.session.get.queryKey({ sessionId: info.id }), info);
        router.push(`/sessions/${info.id}`);
      },
    }),
  );
  const list = projects.data ?? [];
  // Ctrl/⌘+Shift+O pressed on a page without this button led here: it is pressed now, in the preselected project.
  const firstProject = projects.data?.[0]?.id;
  const { mutate } = create;
  useEffect(() => {
    if (firstProject && takeDeferredShortcut("new-session")) mutate({ projectId: firstProject });
  }, [firstProject, mutate]);
  return (
    <div className="flex flex-col items-end gap-1">
      <div className="flex flex-wrap items-center justify-end gap-2">
        {list.length > 1 ? (
          <label className="flex items-center gap-2 text-sm text-zinc-600">
            <span className="sr-only sm:not-sr-only">Project</span>
            <select
              data-testid="project-picker"
              value={projectId}
              onChange={(event) => setChosen(event.target.value)}
              className="h-9 rounded-lg border-0 bg-white px-2.5 text-sm text-zinc-800 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600"
            >
              {list.map((project) => (
                <option key={project.id} value={project.id}>
                  {project.name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {projectId && defaultBranch && branches.data && branches.data.length > 1 ? (
          <label className="flex items-center gap-2 text-sm text-zinc-600">
            <span className="sr-only sm:not-sr-only">Branch</span>
            <select
              data-testid="branch-picker"
              value={branch}
              onChange={(event) => setBranchChoice({ projectId, branch: event.target.value })}
              className="h-9 max-w-48 rounded-lg border-0 bg-white px-2.5 font-mono text-sm text-zinc-800 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600"
            >
              {branches.data.map((name) => (
                <option key={name} value={name}>
                  {name}
                  {name === defaultBranch ? " (default)" : ""}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {projects.isSuccess && list.length === 0 ? (
          <Link href="/team" className="text-sm font-medium text-indigo-600 hover:text-indigo-500" data-testid="add-project-link">
            Add a project
          </Link>
        ) : null}
        <Button
          variant="primary"
          data-testid="new-session"
          aria-keyshortcuts="Control+Shift+O Meta+Shift+O"
          disabled={!projectId || create.isPending}
          title={projects.isSuccess && !projectId ? "No project in this team yet" : undefined}
          onClick={() => projectId && create.mutate(baseBranch ? { projectId, branch: baseBranch } : { projectId })}
        >
          {create.isPending ? <Spinner /> : <PlusIcon />}
          New session
        </Button>
      </div>
      <ErrorLine error={create.error} what="Could not create the session" className="text-xs text-red-600" />
      <ErrorLine error={projects.error} what="Could not load projects" className="text-xs text-red-600" />
    </div>
  );
}

function PlusIcon() {
  return (
    <svg viewBox="0 0 20 20" className="size-4" fill="currentColor" aria-hidden="true">
      <path d="M10.75 4.75a.75.75 0 0 0-1.5 0v4.5h-4.5a.75.75 0 0 0 0 1.5h4.5v4.5a.75.75 0 0 0 1.5 0v-4.5h4.5a.75.75 0 0 0 0-1.5h-4.5v-4.5z" />
    </svg>
  );
}
