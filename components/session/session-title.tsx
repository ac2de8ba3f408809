"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { ErrorLine, Spinner } from "@/components/ui/feedback";
import type { SessionInfo } from "./types";

const MAX_TITLE = 200;

/** The session title, edited in place: Enter saves, Escape cancels. */
export function SessionTitle({ session, editing, onEditingChange }: { session: SessionInfo; editing: boolean; onEditingChange: (editing: boolean) => void }) {
  if (editing) return <TitleEditor session={session} onDone={() => onEditingChange(false)} />;
  return (
    <h1 data-testid="session-title" className="text-2xl font-semibold tracking-tight break-words text-zinc-900">
      {session.title}
    </h1>
  );
}

function TitleEditor({ session, onDone }: { session: SessionInfo; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(session.title);
  const rename = useMutation(
    trpc.session.update.mutationOptions({
      onSuccess: (info) => {
        queryClient.setQueryData(trpc.session.get.queryKey({ sessionId: info.id }), info);
        void queryClient.invalidateQueries({ queryKey: trpc.session.list.pathKey() });
        onDone();
      },
    }),
  );

  const title = draft.trim();
  const save = () => {
    if (!title || title === session.title) return onDone();
    rename.mutate({ sessionId: session.id, patch: { title } });
  };
  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <input
          autoFocus
          aria-label="Session title"
          value={draft}
          maxLength={MAX_TITLE}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              onDone();
            }
          }}
          onFocus={(event) => event.target.select()}
          className="h-10 min-w-0 flex-1 rounded-lg border-0 bg-white px-3 text-lg font-semibold text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600 focus:outline-none"
        />
        <div className="flex gap-2">
          <Button type="submit" variant="primary" disabled={!title || rename.isPending}>
            {rename.isPending ? <Spinner /> : null}
            Save
          </Button>
          <Button
            onClick={() => {
              onDone();
            }}
          >
            Cancel
          </Button>
        </div>
      </div>
      <ErrorLine error={rename.error} what="Could not rename" />
    </form>
  );
}
