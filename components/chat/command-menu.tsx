"use client";

import { useQuery } from "@tanstack/react-query";
import { type KeyboardEvent, useId, useMemo, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { handleListKey } from "./list-keys";
import { type CommandOption, activeSlash, completeCommand, filterCommands } from "./slash";

export interface CommandCompletion {
  /** Whether the menu is shown: the message starts with the `/name` being typed (and Escape has not closed it). */
  open: boolean;
  query: string;
  /** The commands matching it. */
  commands: CommandOption[];
  /** Every command name of the session (what `/name …` may run), once loaded. */
  names: ReadonlySet<string>;
  active: number;
  listId: string;
  optionId: (index: number) => string;
  onKeyDown: (event: KeyboardEvent<HTMLTextAreaElement>) => boolean;
  choose: (index: number, key: "Enter" | "Tab") => void;
  loading: boolean;
  error: string | undefined;
}

/**
 * The `/` menu's state: while the message starts with `/name`, the session's commands
 * (command.list) matching it. Tab completes the highlighted name (`/name `, arguments
 * next); Enter does too, or runs it at once when it takes no arguments.
 */
export function useCommandCompletion(input: { sessionId: string; text: string; caret: number; onComplete: (text: string) => void; onRun: (name: string) => void }): CommandCompletion {
  const trpc = useTRPC();
  const listId = useId();
  const slash = activeSlash(input.text, input.caret);
  // Escape closes the menu until the message no longer starts with a command name.
  const [dismissed, setDismissed] = useState(false);
  if (dismissed && !slash) setDismissed(false);
  const listed = useQuery(trpc.command.list.queryOptions({ sessionId: input.sessionId }, { enabled: input.text.startsWith("/"), staleTime: 30_000 }));
  const all = listed.data?.commands;
  const names = useMemo(() => new Set((all ?? []).map((c) => c.name)), [all]);
  const open = slash !== undefined && !dismissed;
  const query = slash?.query ?? "";
  const commands = open && all ? filterCommands(all, query) : [];
  const key = commands.map((c) => c.name).join("\n");
  const [highlight, setHighlight] = useState({ key: "", index: 0 });
  const active = highlight.key === key ? Math.min(highlight.index, Math.max(commands.length - 1, 0)) : 0;

  const choose = (index: number, how: "Enter" | "Tab") => {
    const command = commands[index];
    if (!command) return;
    if (how === "Enter" && command.hints.length === 0) input.onRun(command.name);
    else input.onComplete(completeCommand(input.text, command.name));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean =>
    open && handleListKey(event, { count: commands.length, active }, { move: (index) => setHighlight({ key, index }), choose, close: () => setDismissed(true) });
  return {
    open,
    query,
    commands,
    names,
    active,
    listId,
    optionId: (index) => `${listId}-${index}`,
    onKeyDown,
    choose,
    loading: listed.isPending,
    error: listed.error?.message,
  };
}

const SOURCES: Record<CommandOption["source"], string> = { "built-in": "built-in", config: "server", team: "team", project: "project" };

/** The menu of commands, above the message box. */
export function CommandMenu({ completion }: { completion: CommandCompletion }) {
  const { open, commands, active } = completion;
  if (!open) return null;
  const note = completion.error
    ? `Commands unavailable: ${completion.error}`
    : commands.length > 0
      ? "Run a command — ↑↓ to choose, Tab to complete, Enter to run, Esc to close"
      : completion.loading
        ? "Loading the commands…"
        : `No command matches “/${completion.query}” (Enter sends it as a message)`;
  return (
    <div className="absolute inset-x-2 bottom-full z-20 mb-2 overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-lg" data-testid="command-menu">
      <p className="border-b border-zinc-100 px-3 py-1.5 text-xs text-zinc-600">{note}</p>
      {commands.length > 0 ? (
        <ul role="listbox" id={completion.listId} aria-label="Commands" className="max-h-72 overflow-y-auto py-1">
          {commands.map((command, index) => (
            <li
              key={command.name}
              id={completion.optionId(index)}
              role="option"
              aria-selected={index === active}
              data-testid="command-option"
              data-command={command.name}
              // Keep the focus in the message box.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => completion.choose(index, "Tab")}
              className={`flex cursor-pointer items-baseline gap-2 px-3 py-1.5 text-[13px] ${index === active ? "bg-indigo-50 text-indigo-900" : "text-zinc-800 hover:bg-zinc-50"}`}
            >
              <span className="shrink-0 font-mono font-medium">/{command.name}</span>
              {command.hints.length > 0 ? (
                <span data-testid="command-hints" className="shrink-0 font-mono text-xs text-zinc-500">
                  {command.hints.join(" ")}
                </span>
              ) : null}
              <span data-testid="command-description" className="min-w-0 flex-1 truncate text-zinc-600">
                {command.description ?? ""}
              </span>
              <Badge>{SOURCES[command.source]}</Badge>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
