import type { PartOf } from "@/components/chat/types";
import { shortHash } from "@/components/ui/format";
import { Icon } from "./icons";

/**
 * The start of a later model step (one request/response round within the assistant turn):
 * a hairline between steps, nothing more — the transcript shows which steps there were,
 * not their bookkeeping (transcriptParts leaves out the first step's start). The snapshot
 * is in its title.
 */
export function StepStartPartView({ part }: { part: PartOf<"step-start"> }) {
  return <div role="separator" aria-label="Next step" title={part.snapshot ? `Snapshot ${part.snapshot}` : undefined} className="h-px bg-zinc-200/70" />;
}

/**
 * The end of a step. Its usage (tokens, cost) is in the session's details, not in the
 * transcript; only an ending worth knowing about is shown (the model ran out of room, a
 * filter stopped it…) — a normal end, tool calls or a user's stop say nothing here.
 */
export function StepFinishPartView({ part }: { part: PartOf<"step-finish"> }) {
  const label = NOTABLE_ENDS[part.reason];
  if (!label) return null;
  return (
    <p className="flex items-center justify-end gap-1 text-xs text-zinc-500">
      <Icon name="flag" className="size-3.5 text-zinc-400" />
      {label}
    </p>
  );
}

const NOTABLE_ENDS: Record<string, string> = {
  length: "Stopped at the length limit",
  "content-filter": "Stopped by the content filter",
  error: "Ended with an error",
  interrupted: "Interrupted",
};

/**
 * The parts a transcript shows: step-finish parts only when they say something
 * (StepFinishPartView), and a step's start only between steps — not before the first.
 */
export function transcriptParts<P extends { type: string; reason?: unknown }>(parts: readonly P[]): P[] {
  const shown: P[] = [];
  for (const part of parts) {
    if (part.type === "step-finish" && (typeof part.reason !== "string" || !Object.hasOwn(NOTABLE_ENDS, part.reason))) continue;
    if (part.type === "step-start" && !shown.some((p) => p.type !== "step-start" && p.type !== "step-finish")) continue;
    shown.push(part);
  }
  return shown;
}

export function SnapshotPartView({ part }: { part: PartOf<"snapshot"> }) {
  return (
    <div className="flex items-center gap-1.5 text-xs text-zinc-500">
      <Icon name="camera" className="size-3.5 text-zinc-400" />
      Snapshot <span className="font-mono text-zinc-700">{shortHash(part.snapshot)}</span>
    </div>
  );
}
