"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { Spinner, errorMessage } from "@/components/ui/feedback";
import type { AppRouter } from "@/server/trpc/router";
import { type Outcome, outcomeText, parleyCode } from "./view";

type Status = inferRouterOutputs<AppRouter>["workspace"]["status"];
type Message = { tone: "ok" | "error"; text: string; files?: string[] };

const AGENT_WORKING = "The agent is working in this session: try again when it is idle.";

/** What an action's failure says (the agent working is said plainly). */
function failure(error: unknown): string {
  return parleyCode(error) === "BUSY" ? AGENT_WORKING : errorMessage(error);
}

/** Hands `text` to the browser as a file download named `filename`. */
function saveText(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/x-patch;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  // After the click the browser holds its own reference to the download.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The workspace's actions (commit with a drafted message, push, merge, update, patches) and what the last one said. */
function useWorkspaceActions(status: Status, target: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const sessionId = status.sessionId;
  const [message, setMessage] = useState<Message>();
  const [draft, setDraft] = useState<string>();
  const [downloading, setDownloading] = useState(false);
  const settle = (next: Status) => {
    queryClient.setQueryData(trpc.workspace.status.queryKey({ sessionId }), next);
    void queryClient.invalidateQueries({ queryKey: trpc.workspace.diff.queryKey({ sessionId }) });
    void queryClient.invalidateQueries({ queryKey: trpc.session.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.dashboard.list.pathKey() });
  };
  const fail = (error: unknown) => setMessage({ tone: "error", text: failure(error) });
  const done = (text: string) => (next: Status) => {
    setMessage({ tone: "ok", text: text.replace("{branch}", next.branch) });
    settle(next);
  };
  const drafting = useMutation(
    trpc.workspace.draftMessage.mutationOptions({
      onMutate: () => {
        setMessage(undefined);
        setDraft("");
      },
      onSuccess: (out) => setDraft(out.message),
      onError: (error) => {
        setDraft(undefined);
        fail(error);
      },
    }),
  );
  const committed = done("Committed on {branch}.");
  const onCommitted = (next: Status) => {
    setDraft(undefined);
    committed(next);
  };
  const commit = useMutation(trpc.workspace.commit.mutationOptions({ onSuccess: onCommitted, onError: fail }));
  const push = useMutation(trpc.workspace.push.mutationOptions({ onSuccess: done("Pushed {branch}."), onError: fail }));
  const outcome = (action: "merge" | "update") => (out: Outcome & { status?: Status }) => {
    setMessage(out.kind === "conflict" ? { tone: "error", text: outcomeText(action, out, target), files: out.files } : { tone: "ok", text: outcomeText(action, out, action === "merge" ? target : status.baseBranch) });
    if (out.status) settle(out.status);
  };
  const merge = useMutation(trpc.workspace.merge.mutationOptions({ onSuccess: outcome("merge"), onError: fail }));
  const update = useMutation(trpc.workspace.update.mutationOptions({ onSuccess: outcome("update"), onError: fail }));
  async function download(kind: "series" | "diff") {
    setDownloading(true);
    setMessage(undefined);
    try {
      const patch = await queryClient.fetchQuery({ ...trpc.workspace.patch.queryOptions({ sessionId, kind }), staleTime: 0 });
      saveText(patch.filename, patch.text);
    } catch (error) {
      fail(error);
    } finally {
      setDownloading(false);
    }
  }
  const pending = drafting.isPending || commit.isPending || push.isPending || merge.isPending || update.isPending || downloading;
  return { sessionId, message, draft, setDraft, drafting, commit, push, merge, update, download, pending };
}

type Actions = ReturnType<typeof useWorkspaceActions>;

/** Commit, push or merge, update from the base, download a patch. */
export function WorkspaceActions({ status, target, busy }: { status: Status; target: string; busy: boolean }) {
  const actions = useWorkspaceActions(status, target);
  const working = busy || actions.pending;
  return (
    <section className="space-y-3" aria-label="Get the work out">
      <ActionButtons status={status} target={target} actions={actions} working={working} />
      {actions.draft !== undefined ? <CommitForm actions={actions} draft={actions.draft} working={working} /> : null}
      <Published status={status} target={target} />
      {actions.message ? <ActionMessage message={actions.message} /> : null}
    </section>
  );
}

function ActionButtons({ status, target, actions, working }: { status: Status; target: string; actions: Actions; working: boolean }) {
  const { sessionId, drafting, push, merge, update, download } = actions;
  const hasCommits = status.commits > 0;
  return (
    <div className="flex flex-wrap gap-2">
      <Button size="sm" variant="primary" data-testid="changes-commit" disabled={working || !status.uncommitted || actions.draft !== undefined} onClick={() => drafting.mutate({ sessionId })}>
        {drafting.isPending ? <Spinner className="size-3.5" /> : null}
        Commit…
      </Button>
      {status.remote ? (
        <Button size="sm" data-testid="changes-push" disabled={working || !hasCommits || status.pushed} onClick={() => push.mutate({ sessionId })}>
          {push.isPending ? <Spinner className="size-3.5" /> : null}
          Push
        </Button>
      ) : (
        <Button size="sm" data-testid="changes-merge" disabled={working || !hasCommits || status.merged} onClick={() => merge.mutate({ sessionId })}>
          {merge.isPending ? <Spinner className="size-3.5" /> : null}
          Merge into {target}
        </Button>
      )}
      <Button size="sm" data-testid="changes-update" disabled={working} onClick={() => update.mutate({ sessionId })}>
        {update.isPending ? <Spinner className="size-3.5" /> : null}
        Update from {status.baseBranch}
      </Button>
      <Button size="sm" variant="ghost" data-testid="changes-download-series" disabled={working || !hasCommits} title="The branch's commits as a git format-patch series" onClick={() => void download("series")}>
        Download patches
      </Button>
      <Button size="sm" variant="ghost" data-testid="changes-download-diff" disabled={working || status.changes.files === 0} title="Everything changed since the base as one diff" onClick={() => void download("diff")}>
        Download diff
      </Button>
    </div>
  );
}

/** The drafted commit message, editable, and Commit / Cancel. */
function CommitForm({ actions, draft, working }: { actions: Actions; draft: string; working: boolean }) {
  const { sessionId, drafting, commit, setDraft } = actions;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (draft.trim()) commit.mutate({ sessionId, message: draft });
  }
  return (
    <form onSubmit={submit} className="space-y-2" data-testid="commit-form">
      <label className="block text-xs font-medium text-zinc-600" htmlFor={`${sessionId}-commit-message`}>
        Commit message {drafting.isPending ? <span className="font-normal text-zinc-500">(drafting…)</span> : null}
      </label>
      <textarea
        id={`${sessionId}-commit-message`}
        data-testid="commit-message"
        value={draft}
        disabled={drafting.isPending || commit.isPending}
        onChange={(event) => setDraft(event.target.value)}
        rows={5}
        className="w-full rounded-lg border-0 bg-white px-3 py-2 font-mono text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600"
      />
      <div className="flex gap-2">
        <Button type="submit" size="sm" variant="primary" data-testid="commit-confirm" disabled={working || !draft.trim()}>
          {commit.isPending ? <Spinner className="size-3.5" /> : null}
          Commit
        </Button>
        <Button size="sm" variant="ghost" disabled={commit.isPending} onClick={() => setDraft(undefined)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

/** Where the branch went: pushed (with the pull request link when the project has a template) or merged. */
function Published({ status, target }: { status: Status; target: string }) {
  return (
    <>
      {status.pushed ? (
        <p data-testid="changes-pushed" className="text-sm text-zinc-700">
          Pushed as <code className="font-mono">{status.branch}</code>
          {status.pullRequestUrl ? (
            <>
              {" · "}
              <a href={status.pullRequestUrl} target="_blank" rel="noopener noreferrer" data-testid="pull-request-link" className="font-medium text-indigo-600 hover:text-indigo-800">
                Open pull request
              </a>
            </>
          ) : null}
        </p>
      ) : null}
      {status.merged ? (
        <p data-testid="changes-merged" className="text-sm text-zinc-700">
          Merged into {target}.
        </p>
      ) : null}
    </>
  );
}

/** What the last action said: done, failed, or the conflicting files. */
function ActionMessage({ message }: { message: Message }) {
  return (
    <div role={message.tone === "error" ? "alert" : "status"} data-testid="changes-message" className={`rounded-lg px-3 py-2 text-sm ${message.tone === "error" ? "bg-red-50 text-red-800" : "bg-emerald-50 text-emerald-800"}`}>
      <p>{message.text}</p>
      {message.files && message.files.length > 0 ? (
        <ul data-testid="conflict-files" className="mt-1 list-inside list-disc font-mono text-xs">
          {message.files.map((file) => (
            <li key={file}>{file}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
