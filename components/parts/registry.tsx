import type { ReactNode } from "react";
import type { Part, PartOf, PartType } from "@/components/chat/types";
import type { RetryOutcome, RetryPart } from "@/lib/retry-parts";
import { AgentPartView, SubtaskPartView } from "./agent-parts";
import { FilePartView } from "./file-part";
import { CompactionPartView, RetryPartView } from "./notice-parts";
import { PatchPartView } from "./patch-part";
import { ReasoningPartView } from "./reasoning-part";
import { RetryCard } from "./retry-card";
import { SnapshotPartView, StepFinishPartView, StepStartPartView } from "./step-parts";
import { TextPartView } from "./text-part";
import { ToolPartView } from "./tool-part";

type PartRenderer<T extends PartType> = (props: { part: PartOf<T> }) => ReactNode;

/**
 * One renderer per part type. The mapped type makes a new part type in
 * server/session/message.ts a compile error here until it has a renderer.
 */
export const PART_RENDERERS: { [T in PartType]: PartRenderer<T> } = {
  text: TextPartView,
  reasoning: ReasoningPartView,
  file: FilePartView,
  tool: ToolPartView,
  "step-start": StepStartPartView,
  "step-finish": StepFinishPartView,
  snapshot: SnapshotPartView,
  patch: PatchPartView,
  agent: AgentPartView,
  subtask: SubtaskPartView,
  retry: RetryPartView,
  compaction: CompactionPartView,
};

function UnknownPartView({ part }: { part: { type: string } }) {
  return <p className="text-xs text-zinc-400 italic">Unsupported part type “{part.type}”.</p>;
}

/** Renders any part with the renderer of its type; the root carries data-part-type (and data-tool-status). */
export function PartView({ part }: { part: Part }) {
  // The map pairs each type with the renderer of that type; TypeScript cannot follow
  // that correlation through an index, hence the one widening cast.
  const Renderer = (Object.hasOwn(PART_RENDERERS, part.type) ? PART_RENDERERS[part.type] : UnknownPartView) as PartRenderer<PartType>;
  return (
    <div data-part-type={part.type} data-part-id={part.id} data-tool-status={part.type === "tool" ? part.state.status : undefined} className="min-w-0">
      <Renderer part={part} />
    </div>
  );
}

/** A message's retry parts as one card, with the root attributes of the first (see lib/retry-parts.ts). */
export function RetryPartsView({ retries, outcome, actions }: { retries: RetryPart[]; outcome: RetryOutcome | undefined; actions?: ReactNode }) {
  return (
    <div data-part-type="retry" data-part-id={retries[0]?.id} data-retries={retries.length} className="min-w-0">
      <RetryCard retries={retries} outcome={outcome} actions={actions} />
    </div>
  );
}
