"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { ErrorLine, Spinner } from "@/components/ui/feedback";

const INPUT =
  "h-9 rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600";

const text = (data: FormData, name: string) => String(data.get(name) ?? "").trim() || undefined;

/**
 * Adding a project from a repository (a URL, and a team secret as its credential: a token
 * or password for https, a deploy key for ssh) or as a new empty repository. The
 * credential is chosen by name; its value never reaches the browser.
 */
export function ProjectSources({ onAdded }: { onAdded: () => void }) {
  const trpc = useTRPC();
  const [mode, setMode] = useState<"clone" | "empty" | undefined>(undefined);
  const secrets = useQuery({ ...trpc.secret.list.queryOptions(), enabled: mode === "clone" });
  const clone = useMutation(trpc.project.clone.mutationOptions({ onSuccess: () => onAdded() }));
  const empty = useMutation(trpc.project.createEmpty.mutationOptions({ onSuccess: () => onAdded() }));
  const done = (form: HTMLFormElement) => () => {
    form.reset();
    setMode(undefined);
  };

  function submitClone(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    clone.mutate(
      { url: text(data, "url") ?? "", credential: text(data, "credential"), user: text(data, "user"), folder: text(data, "folder"), pullRequestUrl: text(data, "pullRequestUrl") },
      { onSuccess: done(form) },
    );
  }

  function submitEmpty(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    empty.mutate({ folder: text(data, "folder") ?? "", name: text(data, "name") }, { onSuccess: done(form) });
  }

  const pending = clone.isPending || empty.isPending;
  const error = clone.error ?? empty.error;
  return (
    <div className="mt-3 space-y-2">
      <div className="flex gap-2">
        <Button size="sm" variant={mode === "clone" ? "primary" : "ghost"} onClick={() => setMode(mode === "clone" ? undefined : "clone")}>
          Add from repository
        </Button>
        <Button size="sm" variant={mode === "empty" ? "primary" : "ghost"} onClick={() => setMode(mode === "empty" ? undefined : "empty")}>
          Create empty
        </Button>
      </div>
      {mode === "clone" ? (
        <form onSubmit={submitClone} className="flex flex-wrap items-center gap-2" data-testid="project-clone-form">
          <input name="url" required placeholder="https://forge/org/repo.git or git@forge:org/repo.git" aria-label="Repository URL" className={`${INPUT} min-w-72 flex-1 font-mono`} />
          <select name="credential" aria-label="Credential" className={INPUT} defaultValue="">
            <option value="">no credential</option>
            {(secrets.data ?? [])
              .filter((secret) => secret.kind === "git-token" || secret.kind === "git-password" || secret.kind === "ssh-key")
              .map((secret) => (
                <option key={secret.name} value={secret.name}>
                  {secret.name} ({secret.kind})
                </option>
              ))}
          </select>
          <input name="user" placeholder="user (https, optional)" aria-label="User name" className={`${INPUT} w-44`} />
          <input name="folder" placeholder="folder (optional)" aria-label="Folder" className={`${INPUT} w-40 font-mono`} />
          <input name="pullRequestUrl" placeholder="pull request link with {branch} (optional)" aria-label="Pull request link" className={`${INPUT} min-w-72 flex-1`} />
          <Button type="submit" variant="primary" disabled={pending}>
            {clone.isPending ? <Spinner /> : null}
            Clone
          </Button>
        </form>
      ) : null}
      {mode === "empty" ? (
        <form onSubmit={submitEmpty} className="flex flex-wrap items-center gap-2" data-testid="project-empty-form">
          <input name="folder" required placeholder="folder" aria-label="Folder" className={`${INPUT} w-48 font-mono`} />
          <input name="name" placeholder="name (optional)" aria-label="Project name" maxLength={100} className={`${INPUT} w-40`} />
          <Button type="submit" variant="primary" disabled={pending}>
            {empty.isPending ? <Spinner /> : null}
            Create
          </Button>
        </form>
      ) : null}
      <ErrorLine error={error} className="text-sm whitespace-pre-wrap text-red-700" />
    </div>
  );
}
