"use client";

import { useQuery } from "@tanstack/react-query";
import { createContext, useContext, useState } from "react";
import { Icon } from "@/components/parts/icons";
import { useTRPC } from "@/components/trpc/client";
import { ErrorNotice, Spinner, errorMessage } from "@/components/ui/feedback";
import { type InstructionEntry, instructionEntries, instructionSummary } from "./instructions";
import { DiffSourceContext } from "./turn-diff";
import type { AssistantMessage, Part } from "./types";

/** Answers whose line only repeats the previous step's (instructions.ts repeatedInstructionLines): given by the message list. */
export const RepeatedInstructionsContext = createContext<ReadonlySet<string>>(new Set());

/**
 * "Instructions: AGENTS.md, docs/rules.md, team" under an answer: which rule files and
 * instructions its prompt held (tool servers' as "tool server <name>"), and which rule files its reads appended;
 * above it, the warning when the tool servers' tools took a large share of the model's context. Members open
 * each to read it as it is now; a share link's viewers get the names only.
 */
export function InstructionsLine({ info, parts }: { info: AssistantMessage; parts: Part[] }) {
  const source = useContext(DiffSourceContext);
  const repeated = useContext(RepeatedInstructionsContext);
  const [open, setOpen] = useState(false);
  const entries = instructionEntries(info, parts);
  if ((entries.length === 0 && !info.toolWarning) || repeated.has(info.id)) return null;
  const member = source?.kind === "member" ? source.sessionId : undefined;
  return (
    <div className="mt-2 text-xs text-zinc-500" data-testid="instructions-line">
      {info.toolWarning ? (
        <p role="note" data-testid="tool-context-warning" className="mb-1 text-amber-800">
          {info.toolWarning}
        </p>
      ) : null}
      {entries.length > 0 ? (
        <button
          type="button"
          aria-expanded={open}
          onClick={() => setOpen((value) => !value)}
          className="inline-flex items-center gap-1.5 rounded-md px-1 py-0.5 hover:bg-zinc-100 hover:text-zinc-700 focus-visible:outline-2 focus-visible:outline-indigo-600"
        >
          <Icon name="file" className="size-3.5" />
          <span data-testid="instructions-summary">{instructionSummary(entries)}</span>
        </button>
      ) : null}
      {open ? (
        <ul className="mt-1.5 space-y-1.5 border-l border-zinc-200 pl-3" data-testid="instructions-list">
          {entries.map((entry) => (
            <li key={`${entry.nested ? "nested" : "prompt"}:${entry.label}`}>
              <Entry entry={entry} sessionId={member} messageId={info.id} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function kindNote(kind: InstructionEntry["kind"]): string | undefined {
  if (kind === "team" || kind === "project") return `the ${kind}’s instructions`;
  return kind === "server" ? "the instructions it announces" : undefined;
}

function Entry({ entry, sessionId, messageId }: { entry: InstructionEntry; sessionId: string | undefined; messageId: string }) {
  const [shown, setShown] = useState(false);
  const notes = [kindNote(entry.kind), entry.nested ? "appended to a read" : undefined, entry.cut ? "cut at a size limit" : undefined].filter((note): note is string => note !== undefined);
  return (
    <div>
      <span className="font-mono text-zinc-700">{entry.label}</span>
      {notes.length > 0 ? <span className="ml-1.5">({notes.join(", ")})</span> : null}
      {entry.skipped !== undefined ? <span className="ml-1.5 text-amber-700">left out: {entry.skipped}</span> : null}
      {sessionId !== undefined && entry.skipped === undefined ? (
        <button type="button" onClick={() => setShown((value) => !value)} className="ml-2 font-medium text-indigo-600 hover:text-indigo-800" aria-expanded={shown}>
          {shown ? "Hide" : "Open"}
        </button>
      ) : null}
      {shown && sessionId !== undefined ? <Contents sessionId={sessionId} messageId={messageId} label={entry.label} /> : null}
    </div>
  );
}

function Contents({ sessionId, messageId, label }: { sessionId: string; messageId: string; label: string }) {
  const trpc = useTRPC();
  const opened = useQuery(trpc.instructions.open.queryOptions({ sessionId, messageId, label }));
  if (opened.isPending) return <Spinner className="mt-1 size-3" />;
  if (opened.isError) return <ErrorNotice title="Could not open it">{errorMessage(opened.error)}</ErrorNotice>;
  const { text, note, changed } = opened.data;
  return (
    <div className="mt-1" data-testid="instructions-contents">
      {changed ? <p className="text-amber-700">It has changed since this answer: this is how it reads now.</p> : null}
      {note ? <p>{note}</p> : null}
      {text !== undefined ? (
        <pre className="mt-1 max-h-72 overflow-auto rounded-lg bg-zinc-50 px-3 py-2 text-xs whitespace-pre-wrap text-zinc-800 ring-1 ring-zinc-200 ring-inset">{text}</pre>
      ) : null}
    </div>
  );
}
