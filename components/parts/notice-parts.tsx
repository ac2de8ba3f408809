import type { PartOf } from "@/components/chat/types";
import { Icon } from "./icons";
import { RetryCard } from "./retry-card";

/**
 * A failed model call that is being retried, on its own. The chat shows a message's retry
 * parts together as one card (lib/retry-parts.ts), with how the call ended.
 */
export function RetryPartView({ part }: { part: PartOf<"retry"> }) {
  return <RetryCard retries={[part]} outcome={undefined} />;
}

/** Where the conversation was summarized to free context. */
export function CompactionPartView({ part }: { part: PartOf<"compaction"> }) {
  const how = [part.auto ? "automatically" : "on request", part.overflow ? "context was full" : undefined].filter(Boolean).join(", ");
  return (
    <div className="flex items-center gap-3 py-1 text-xs text-zinc-500">
      <span className="h-px flex-1 bg-gradient-to-r from-transparent to-zinc-300" />
      <span className="inline-flex items-center gap-1.5 rounded-full bg-white px-3 py-1 font-medium text-zinc-600 ring-1 ring-zinc-200">
        <Icon name="compress" className="size-3.5 text-zinc-400" />
        Conversation compacted <span className="font-normal text-zinc-400">({how})</span>
      </span>
      <span className="h-px flex-1 bg-gradient-to-l from-transparent to-zinc-300" />
    </div>
  );
}
