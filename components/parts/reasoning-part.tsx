import type { PartOf } from "@/components/chat/types";
import { formatDuration } from "@/components/ui/format";
import { Icon } from "./icons";
import { Markdown } from "./markdown";

/** The model's reasoning, collapsed by default. */
export function ReasoningPartView({ part }: { part: PartOf<"reasoning"> }) {
  const done = part.time.end !== undefined;
  const label = done ? `Thought for ${formatDuration((part.time.end ?? part.time.start) - part.time.start)}` : "Thinking…";
  return (
    <details className="group rounded-lg border border-zinc-200 bg-zinc-50/60 open:bg-white">
      <summary className="flex cursor-pointer list-none items-center gap-2 px-3 py-2 text-sm text-zinc-600 select-none hover:text-zinc-900 [&::-webkit-details-marker]:hidden">
        <Icon name="chevron" className="size-4 text-zinc-400 transition-transform group-open:rotate-90" />
        <Icon name="bulb" className={`size-4 ${done ? "text-amber-400" : "animate-pulse text-amber-500"}`} />
        <span className="font-medium">{label}</span>
      </summary>
      <div className="border-t border-zinc-100 px-3 py-2.5">
        {part.text.trim() ? <Markdown text={part.text} className="text-sm text-zinc-600" /> : <p className="text-sm text-zinc-400 italic">No reasoning text.</p>}
      </div>
    </details>
  );
}
