import type { PartOf } from "@/components/chat/types";
import { formatCost, formatCount, shortHash } from "@/components/ui/format";
import { Icon } from "./icons";

/** The start of one model step (one request/response round within the assistant turn). */
export function StepStartPartView({ part }: { part: PartOf<"step-start"> }) {
  return (
    <div className="flex items-center gap-2 text-[11px] font-medium tracking-wide text-zinc-400 uppercase">
      <span className="h-px flex-1 bg-zinc-200" />
      <span>Step</span>
      {part.snapshot ? (
        <span className="font-mono normal-case" title={`Snapshot ${part.snapshot}`}>
          @{shortHash(part.snapshot)}
        </span>
      ) : null}
      <span className="h-px flex-1 bg-zinc-200" />
    </div>
  );
}

const REASONS: Record<string, string> = {
  stop: "Finished",
  "tool-calls": "Tool calls",
  length: "Length limit",
  "content-filter": "Content filter",
  error: "Error",
  interrupted: "Interrupted",
  other: "Other",
};

/** End of a step: why it ended, what it used and what it cost. */
export function StepFinishPartView({ part }: { part: PartOf<"step-finish"> }) {
  const t = part.tokens;
  return (
    <div className="flex flex-wrap items-center justify-end gap-x-3 gap-y-1 text-xs text-zinc-500">
      <span className="inline-flex items-center gap-1 font-medium text-zinc-600">
        <Icon name="flag" className="size-3.5 text-zinc-400" />
        {REASONS[part.reason] ?? part.reason}
      </span>
      <span className="tabular-nums" title="Input / output tokens">
        {formatCount(t.input)} in · {formatCount(t.output)} out
      </span>
      {t.reasoning > 0 ? <span className="tabular-nums">{formatCount(t.reasoning)} reasoning</span> : null}
      {t.cache.read > 0 || t.cache.write > 0 ? (
        <span className="tabular-nums" title="Cache read / write tokens">
          cache {formatCount(t.cache.read)}/{formatCount(t.cache.write)}
        </span>
      ) : null}
      <span className="font-mono text-zinc-700 tabular-nums">{formatCost(part.cost)}</span>
    </div>
  );
}

export function SnapshotPartView({ part }: { part: PartOf<"snapshot"> }) {
  return (
    <div className="flex items-center gap-1.5 text-xs text-zinc-500">
      <Icon name="camera" className="size-3.5 text-zinc-400" />
      Snapshot <span className="font-mono text-zinc-700">{shortHash(part.snapshot)}</span>
    </div>
  );
}
