"use client";

import { memo, useState } from "react";
import { PartView } from "@/components/parts/registry";
import { Spinner } from "@/components/ui/feedback";
import { formatTokens } from "@/components/ui/format";
import { MessageErrorNotice } from "./message-error";
import { MessageView } from "./message-view";
import type { WithParts } from "./types";

type State = "waiting" | "running" | "done" | "failed";

function stateOf(summary: WithParts | undefined): State {
  if (!summary || summary.info.role !== "assistant") return "waiting";
  if (summary.info.error) return "failed";
  return summary.info.time.completed === undefined ? "running" : "done";
}

/**
 * A compaction in the conversation: the marker, "Compacting…" while the summary is being
 * written, then the summary itself — collapsed, since the conversation above it is what
 * the user read; it can be expanded to see what the model now works from.
 */
export const CompactionRow = memo(function CompactionRow({
  request,
  summary,
  compacting,
}: {
  request: WithParts;
  summary: WithParts | undefined;
  /** The session is compacting now (time.compacting is set). */
  compacting: boolean;
}) {
  const [open, setOpen] = useState(false);
  const marker = request.parts.find((part) => part.type === "compaction");
  const state = stateOf(summary);
  const busy = state === "running" || (state === "waiting" && compacting);
  const error = summary?.info.role === "assistant" ? summary.info.error : undefined;
  const output = summary?.info.role === "assistant" ? summary.info.tokens.output : 0;
  return (
    <section data-testid="compaction" data-message-id={request.info.id} data-state={busy ? "running" : state} aria-label="Compaction" className="space-y-2">
      {marker ? <PartView part={marker} /> : null}
      <div className="flex flex-col items-center gap-2">
        {busy ? (
          <p data-testid="compaction-progress" role="status" className="inline-flex items-center gap-2 text-sm text-sky-700">
            <Spinner className="size-3.5" /> Compacting… the model is summarizing the conversation
          </p>
        ) : null}
        {error ? (
          <div className="w-full">
            <MessageErrorNotice error={error} />
          </div>
        ) : null}
        {summary && state !== "failed" ? (
          <div className="w-full">
            <div className="flex justify-center">
              <button
                type="button"
                aria-expanded={open}
                data-testid="compaction-summary-toggle"
                onClick={() => setOpen((value) => !value)}
                className="rounded-full px-3 py-1 text-xs font-medium text-indigo-600 hover:bg-indigo-50 hover:text-indigo-800"
              >
                {open ? "Hide summary" : "Show summary"}
                {state === "done" && output > 0 ? <span className="font-normal text-zinc-400"> · {formatTokens(output)}</span> : null}
              </button>
            </div>
            {open ? (
              <div data-testid="compaction-summary" className="mt-2 rounded-2xl border border-violet-100 bg-violet-50/40 p-4">
                <MessageView message={summary} />
              </div>
            ) : null}
          </div>
        ) : null}
      </div>
    </section>
  );
});
