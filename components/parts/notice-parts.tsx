import type { PartOf } from "@/components/chat/types";
import { formatDateTime } from "@/components/ui/format";
import { Icon } from "./icons";

/** A failed model call that is being retried. */
export function RetryPartView({ part }: { part: PartOf<"retry"> }) {
  const { error } = part;
  return (
    <div className="flex gap-2.5 rounded-xl border border-amber-200 bg-amber-50 px-3.5 py-2.5 text-sm">
      <Icon name="retry" className="mt-0.5 size-4 text-amber-600" />
      <div className="min-w-0">
        <p className="font-medium text-amber-900">
          Retry attempt {part.attempt}
          {error.statusCode ? <span className="font-normal text-amber-700"> · HTTP {error.statusCode}</span> : null}
          <span className="font-normal text-amber-700"> · {formatDateTime(part.time.created)}</span>
        </p>
        <p className="mt-0.5 break-words text-amber-800">{error.message}</p>
      </div>
    </div>
  );
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
