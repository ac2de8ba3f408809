"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type KeyboardEvent, useEffect, useId, useState } from "react";
import { Icon } from "@/components/parts/icons";
import { useTRPC } from "@/components/trpc/client";
import { type ActiveMention, activeMention } from "@/lib/mentions";
import { handleListKey } from "./list-keys";

/** Pause after the last keystroke before the project's files are asked for (ms). */
const DEBOUNCE_MS = 120;

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export interface MentionCompletion {
  /** The mention being typed, while its list is shown. */
  mention: ActiveMention | undefined;
  files: string[];
  /** Index of the highlighted file. */
  active: number;
  listId: string;
  optionId: (index: number) => string;
  /** Handles ↑/↓ (move), Enter/Tab (choose) and Escape (close) while the list is shown; true when the key was used. */
  onKeyDown: (event: KeyboardEvent<HTMLTextAreaElement>) => boolean;
  choose: (index: number) => void;
  searching: boolean;
  /** The query the files shown answer (undefined while they are those of an earlier one). */
  answered: string | undefined;
}

/**
 * Completion of `@` mentions: while the caret is in an `@…` word, the session's project
 * files matching it are listed (session.files), best first; choosing one calls `onChoose`.
 */
export function useMentionCompletion(input: { sessionId: string; text: string; caret: number; onChoose: (mention: ActiveMention, file: string) => void }): MentionCompletion {
  const trpc = useTRPC();
  const listId = useId();
  const typed = activeMention(input.text, input.caret);
  // Escape closes the list for the mention it was open for (reopened by another @).
  const [dismissed, setDismissed] = useState<number>();
  // Once that mention is gone (deleted, or the caret left it), a new one opens the list again.
  if (dismissed !== undefined && typed?.start !== dismissed) setDismissed(undefined);
  const mention = typed && typed.start !== dismissed ? typed : undefined;
  const query = useDebounced(mention?.query ?? "", DEBOUNCE_MS);
  const found = useQuery(
    trpc.session.files.queryOptions({ sessionId: input.sessionId, query }, { enabled: mention !== undefined, placeholderData: keepPreviousData, staleTime: 15_000 }),
  );
  const files = mention ? (found.data?.files ?? []) : [];
  const key = files.join("\n");
  const [highlight, setHighlight] = useState({ key: "", index: 0 });
  const active = highlight.key === key ? Math.min(highlight.index, Math.max(files.length - 1, 0)) : 0;

  const choose = (index: number) => {
    const file = files[index];
    if (mention && file !== undefined) input.onChoose(mention, file);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!mention) return false;
    // Closing the list is all Escape does here (not, say, stopping the agent).
    return handleListKey(event, { count: files.length, active }, { move: (index) => setHighlight({ key, index }), choose, close: () => setDismissed(mention.start) });
  };
  return {
    mention,
    files,
    active,
    listId,
    optionId: (index) => `${listId}-${index}`,
    onKeyDown,
    choose,
    searching: found.isFetching,
    answered: found.data && !found.isPlaceholderData ? query : undefined,
  };
}

/** The list of matching files, above the message box. */
export function MentionMenu({ completion }: { completion: MentionCompletion }) {
  const { mention, files, active } = completion;
  if (!mention) return null;
  return (
    <div
      className="absolute inset-x-2 bottom-full z-20 mb-2 overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-lg"
      data-testid="mention-menu"
      data-query={completion.answered}
    >
      <p className="border-b border-zinc-100 px-3 py-1.5 text-xs text-zinc-600">
        {files.length > 0 ? "Mention a project file — ↑↓ to choose, Enter or Tab to insert, Esc to close" : completion.searching ? "Looking for files…" : `No project file matches “${mention.query}”`}
      </p>
      {files.length > 0 ? (
        <ul role="listbox" id={completion.listId} aria-label="Project files" className="max-h-60 overflow-y-auto py-1">
          {files.map((file, index) => (
            <li
              key={file}
              id={completion.optionId(index)}
              role="option"
              aria-selected={index === active}
              data-testid="mention-option"
              // Keep the focus in the message box.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => completion.choose(index)}
              className={`flex cursor-pointer items-center gap-2 px-3 py-1.5 font-mono text-[13px] ${index === active ? "bg-indigo-50 text-indigo-900" : "text-zinc-800 hover:bg-zinc-50"}`}
            >
              <Icon name="file" className="size-3.5 shrink-0 text-zinc-500" />
              <span className="truncate">{file}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
