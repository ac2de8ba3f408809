"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { ErrorLine, QueryView } from "@/components/ui/feedback";
import { type ProjectScope, ScopePicker, useProjectScope } from "./project-scope";
import { SaveBar } from "./save-bar";
import { AdminsOnly, Section } from "./section";

/** Characters one text may have (server/instructions/stored.ts MAX_STORED_CHARS). */
const MAX_CHARS = 32_000;

/**
 * What the team (every project) or one project tells the agent, before the repository's
 * own AGENTS.md: every member reads it, owners and admins write it (the server refuses
 * anyone else).
 */
export function TeamInstructions({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const scoped = useProjectScope();
  const { project, scope } = scoped;
  const stored = useQuery(trpc.instructions.get.queryOptions(scope));

  return (
    <Section
      title="Instructions"
      testId="team-instructions"
      description="Told to the agent at the start of every turn, before the repository’s own AGENTS.md (labelled “team” and “project”)."
    >
      <ScopePicker label="Instructions for" allLabel="The whole team" testId="instructions-scope" scope={scoped} />
      {isAdmin ? null : <AdminsOnly testId="instructions-read-only" may="change the instructions" />}
      <div className="mt-4">
        <QueryView query={stored} loading="Loading the instructions…" failed="Could not load the instructions">
          {(data) => <InstructionsForm key={scoped.key} scope={scope} initial={data.text} readOnly={!isAdmin || !data.editable} label={project ? project.name : "the whole team"} />}
        </QueryView>
      </div>
    </Section>
  );
}

function InstructionsForm({ scope, initial, readOnly, label }: { scope: ProjectScope; initial: string; readOnly: boolean; label: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [text, setText] = useState(initial);
  const [saved, setSaved] = useState(initial);
  const save = useMutation(
    trpc.instructions.set.mutationOptions({
      onSuccess: (result) => {
        setSaved(result.text);
        setText(result.text);
        queryClient.setQueryData(trpc.instructions.get.queryKey(scope), result);
      },
    }),
  );
  if (readOnly) {
    return initial ? (
      <pre data-testid="instructions-text" className="max-h-96 overflow-auto rounded-lg bg-zinc-50 px-3 py-2 text-sm whitespace-pre-wrap text-zinc-800 ring-1 ring-zinc-200 ring-inset">
        {initial}
      </pre>
    ) : (
      <p className="text-sm text-zinc-500">No instructions for {label}.</p>
    );
  }
  const dirty = text !== saved;
  return (
    <form
      data-testid="instructions-form"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate({ ...scope, text });
      }}
    >
      <textarea
        aria-label={`Instructions for ${label}`}
        data-testid="instructions-input"
        value={text}
        maxLength={MAX_CHARS}
        rows={8}
        onChange={(event) => setText(event.target.value)}
        placeholder="e.g. Answer in English. Run the tests before you say a change is done."
        className="w-full rounded-lg border-0 bg-white px-3 py-2 font-mono text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600"
      />
      <ErrorLine error={save.error} className="mt-2 text-sm text-red-600" />
      <SaveBar
        testId="instructions-status"
        status={dirty ? "Unsaved changes." : save.isSuccess ? "Saved." : `${text.length} / ${MAX_CHARS} characters`}
        dirty={dirty}
        saving={save.isPending}
        onDiscard={() => setText(saved)}
        saveLabel="Save instructions"
        className="mt-3"
      />
    </form>
  );
}
