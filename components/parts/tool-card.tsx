import type { ReactNode } from "react";
import type { PartOf, ToolState } from "@/components/chat/types";
import { Badge, type Tone } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/feedback";
import { formatDuration } from "@/components/ui/format";
import { Icon } from "./icons";
import type { ToolRenderer } from "./tools/registry";

/**
 * The card every tool call is shown in, for the chat (tool-part.tsx, which opens it on
 * demand and adds the open question) and for share pages (rendered on the server, a native
 * <details>): plain markup, no hooks, so both can use it.
 */

const STATUS: Record<ToolState["status"], { label: string; tone: Tone; ring: string }> = {
  pending: { label: "Pending", tone: "neutral", ring: "border-zinc-200" },
  running: { label: "Running", tone: "blue", ring: "border-sky-200" },
  completed: { label: "Completed", tone: "green", ring: "border-zinc-200" },
  error: { label: "Error", tone: "red", ring: "border-red-200" },
};

/** What the server writes on a tool that was still open when its reply was stopped or cut off. */
const ABORTED_TOOL = "Tool execution aborted";
const ABORTED = { label: "Aborted", tone: "amber", ring: "border-amber-200" } as const;
/** A running call that waits for a person to answer its permission question. */
const WAITING = { label: "Waiting for approval", tone: "amber", ring: "border-amber-300" } as const;

/** The card's subtitle: the title the tool reported, else the renderer's summary of its input. */
export function toolTitle(state: ToolState, renderer: ToolRenderer): string | undefined {
  return (state.status === "running" || state.status === "completed" ? state.title : undefined) || renderer.summary?.(state.input);
}

function durationOf(state: ToolState): number | undefined {
  return state.status === "completed" || state.status === "error" ? state.time.end - state.time.start : undefined;
}

/** A tool's error on one line (its start: the summary cuts it to the card's width), for the card's summary. */
function errorLine(state: ToolState): string | undefined {
  return state.status === "error" ? state.error.slice(0, 300).replace(/\s+/g, " ").trim() || undefined : undefined;
}

export interface ToolCardProps {
  part: PartOf<"tool">;
  renderer: ToolRenderer;
  title: string | undefined;
  /** A live line for the collapsed card (the renderer's `progress`). */
  progress?: string | undefined;
  /** Controlled by the chat's card; a share page's card is left to the browser. */
  open?: boolean;
  onToggle?: (open: boolean) => void;
  /** The body (the renderer's), shown when the card is open. */
  children: ReactNode;
  /** Under the card's details (the chat's open question). */
  after?: ReactNode;
}

/**
 * A tool call collapsed to one line (name, title, progress, error, duration, state badge —
 * "Waiting for approval" while a person has to answer its permission question) until opened.
 */
export function ToolCard({ part, renderer, title, progress, open, onToggle, children, after }: ToolCardProps) {
  const { state } = part;
  const waiting = state.status === "running" && state.approval !== undefined;
  const status = waiting ? WAITING : state.status === "error" && state.error === ABORTED_TOOL ? ABORTED : STATUS[state.status];
  const failure = status === ABORTED ? undefined : errorLine(state);
  const duration = durationOf(state);
  return (
    <div className={`overflow-hidden rounded-xl border bg-white shadow-xs ${status.ring}`} data-waiting={waiting ? "approval" : undefined}>
      <details open={open} onToggle={onToggle ? (event) => onToggle(event.currentTarget.open) : undefined} className="group">
        <summary className="flex cursor-pointer list-none items-center gap-2.5 px-3.5 py-2 select-none hover:bg-zinc-50/80 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600 [&::-webkit-details-marker]:hidden">
          <span className={`grid size-7 shrink-0 place-items-center rounded-lg ${state.status === "error" ? "bg-red-50 text-red-500" : "bg-zinc-100 text-zinc-500"}`}>
            <Icon name={renderer.icon} className="size-4" />
          </span>
          <span className="flex min-w-0 flex-1 items-baseline gap-2">
            <span data-testid="tool-name" className="shrink-0 font-mono text-[13px] font-semibold text-zinc-900">
              {part.tool}
            </span>
            {title ? (
              <span data-testid="tool-title" className="min-w-0 truncate text-sm text-zinc-500">
                {title}
              </span>
            ) : null}
            {progress ? (
              <span data-testid="tool-progress" className="min-w-0 shrink truncate text-xs text-zinc-500">
                {progress}
              </span>
            ) : null}
            {failure ? (
              <span data-testid="tool-summary-error" className="min-w-0 truncate text-sm text-red-700" title={failure}>
                {failure}
              </span>
            ) : null}
          </span>
          {duration !== undefined ? (
            <span className="hidden items-center gap-1 text-xs text-zinc-400 tabular-nums sm:inline-flex" title="Duration">
              <Icon name="clock" className="size-3.5" />
              {formatDuration(duration)}
            </span>
          ) : null}
          <Badge tone={status.tone} data-testid="tool-status">
            {state.status === "running" && !waiting ? <Spinner className="size-3" /> : null}
            {status.label}
          </Badge>
          <Icon name="chevron" className="size-4 text-zinc-400 transition-transform group-open:rotate-90" />
        </summary>
        <div className="border-t border-zinc-100 px-3.5 py-3">{children}</div>
      </details>
      {after}
    </div>
  );
}
