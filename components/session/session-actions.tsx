"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { ErrorLine, Spinner } from "@/components/ui/feedback";
import type { SessionInfo } from "./types";

/** Rename, fork, archive/unarchive and delete. */
export function SessionActions({ session, onRename }: { session: SessionInfo; onRename: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const refreshList = () => queryClient.invalidateQueries({ queryKey: trpc.session.list.pathKey() });

  const fork = useMutation(
    trpc.session.fork.mutationOptions({
      onSuccess: (info) => {
        void refreshList();
        queryClient.setQueryData(trpc.session.get.queryKey({ sessionId: info.id }), info);
        router.push(`/sessions/${info.id}`);
      },
    }),
  );
  const archive = useMutation(
    trpc.session.update.mutationOptions({
      onSuccess: (info) => {
        queryClient.setQueryData(trpc.session.get.queryKey({ sessionId: info.id }), info);
        void refreshList();
      },
    }),
  );
  const remove = useMutation(
    trpc.session.remove.mutationOptions({
      onSuccess: () => {
        setConfirming(false);
        void refreshList();
        router.push("/");
      },
    }),
  );

  const archived = session.time.archived !== undefined;
  const error = fork.error ?? archive.error ?? remove.error;
  return (
    <div className="flex flex-col items-start gap-2 sm:items-end">
      <div role="toolbar" aria-label="Session actions" className="flex flex-wrap gap-2">
        <Button size="sm" onClick={onRename}>
          Rename
        </Button>
        <Button size="sm" onClick={() => fork.mutate({ sessionId: session.id })} disabled={fork.isPending}>
          {fork.isPending ? <Spinner className="size-3.5" /> : null}
          Fork
        </Button>
        <Button size="sm" onClick={() => archive.mutate({ sessionId: session.id, patch: { archived: !archived } })} disabled={archive.isPending}>
          {archive.isPending ? <Spinner className="size-3.5" /> : null}
          {archived ? "Unarchive" : "Archive"}
        </Button>
        <Button size="sm" variant="ghost" className="text-red-600 hover:bg-red-50 hover:text-red-700" onClick={() => setConfirming(true)}>
          Delete
        </Button>
      </div>
      <ErrorLine error={remove.error ? undefined : error} />
      <ConfirmDialog
        open={confirming}
        title="Delete this session?"
        confirmLabel="Delete session"
        pending={remove.isPending}
        onCancel={() => {
          remove.reset();
          setConfirming(false);
        }}
        onConfirm={() => remove.mutate({ sessionId: session.id })}
      >
        <p>
          “<span className="font-medium text-zinc-900">{session.title}</span>”, its messages and all of its child sessions will be deleted for good.
        </p>
        <ErrorLine error={remove.error} what="Could not delete" className="mt-2 text-red-600" />
      </ConfirmDialog>
    </div>
  );
}
