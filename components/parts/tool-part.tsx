import type { PartOf, ToolState } from "@/components/chat/types";
import { ToolQuestion } from "@/components/permission/inline";
import { Badge, type Tone } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/feedback";
import { formatDuration } from "@/components/ui/format";
import { Icon } from "./icons";
import { toolRenderer } from "./tools/registry";

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

function titleOf(state: ToolState): string | undefined {
  return state.status === "running" || state.status === "completed" ? state.title : undefined;
}

function durationOf(state: ToolState): number | undefined {
  return state.status === "completed" || state.status === "error" ? state.time.end - state.time.start : undefined;
}

/**
 * The card shared by every tool call: name, title, state badge ("Waiting for approval" while
 * a person has to answer its permission question), duration; the body comes from the
 * tool's renderer; the open question itself, on a member's page, right below.
 */
export function ToolPartView({ part }: { part: PartOf<"tool"> }) {
  const { state } = part;
  const renderer = toolRenderer(part.tool);
  const waiting = state.status === "running" && state.approval !== undefined;
  const status = waiting ? WAITING : state.status === "error" && state.error === ABORTED_TOOL ? ABORTED : STATUS[state.status];
  const title = titleOf(state) || renderer.summary?.(state.input);
  const duration = durationOf(state);
  const Body = renderer.Body;
  return (
    <div className={`overflow-hidden rounded-xl border bg-white shadow-xs ${status.ring}`} data-waiting={waiting ? "approval" : undefined}>
      <details open className="group">
        <summary className="flex cursor-pointer list-none items-center gap-2.5 px-3.5 py-2.5 select-none hover:bg-zinc-50/80 [&::-webkit-details-marker]:hidden">
          <span className={`grid size-7 shrink-0 place-items-center rounded-lg ${state.status === "error" ? "bg-red-50 text-red-500" : "bg-zinc-100 text-zinc-500"}`}>
            <Icon name={renderer.icon} className="size-4" />
          </span>
          <span className="flex min-w-0 flex-1 flex-col sm:flex-row sm:items-baseline sm:gap-2">
            <span data-testid="tool-name" className="font-mono text-[13px] font-semibold text-zinc-900">
              {part.tool}
            </span>
            {title ? (
              <span data-testid="tool-title" className="truncate text-sm text-zinc-500">
                {title}
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
        <div className="border-t border-zinc-100 px-3.5 py-3">
          <Body part={part} state={state} input={state.input} title={title} />
        </div>
      </details>
      <ToolQuestion messageId={part.messageId} callId={part.callId} />
    </div>
  );
}
