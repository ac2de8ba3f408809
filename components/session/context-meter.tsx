"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { WithParts } from "@/components/chat/types";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/feedback";
import { formatCount } from "@/components/ui/format";
import { contextUsage } from "./context-usage";
import type { SessionInfo } from "./types";

interface ModelRef {
  providerId: string;
  modelId: string;
}

/** The model the session runs on: its own, else the one of its last message, else the default. */
function sessionModel(info: SessionInfo, messages: WithParts[], fallback: ModelRef | undefined): ModelRef | undefined {
  if (info.model) return info.model;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]?.info;
    if (message?.role === "user") return message.model;
  }
  return fallback;
}

/**
 * How much of the model's context the conversation fills (updates live as steps finish),
 * and "Compacting…" while a compaction runs.
 */
export function ContextMeter({ info, messages }: { info: SessionInfo; messages: WithParts[] }) {
  const trpc = useTRPC();
  const models = useQuery(trpc.model.list.queryOptions(undefined, { staleTime: 5 * 60_000 }));
  const ref = sessionModel(info, messages, models.data?.default);
  const model = ref ? models.data?.models.find((m) => m.providerId === ref.providerId && m.modelId === ref.modelId) : undefined;
  const usage = useMemo(() => contextUsage(messages, model?.limit), [messages, model?.limit]);
  const percent = usage.ratio !== undefined ? Math.round(usage.ratio * 100) : undefined;
  const tone = usage.ratio === undefined ? "bg-zinc-400" : usage.ratio >= 1 ? "bg-red-500" : usage.ratio >= 0.8 ? "bg-amber-500" : "bg-indigo-500";
  const title =
    usage.usable === undefined
      ? "The model's context limit is unknown"
      : `${(usage.used ?? 0).toLocaleString("en")} of ${usage.usable.toLocaleString("en")} usable tokens (the model's context minus the room kept for its answer)`;
  return (
    <span className="inline-flex items-center gap-2">
      <span
        data-testid="context-meter"
        data-used={usage.used ?? 0}
        data-usable={usage.usable ?? ""}
        title={title}
        className="inline-flex items-center gap-2 tabular-nums"
      >
        <span className="text-zinc-500">Context</span>
        {usage.usable !== undefined ? (
          <span
            role="meter"
            aria-label="Context used"
            aria-valuemin={0}
            aria-valuemax={usage.usable}
            aria-valuenow={Math.min(usage.used ?? 0, usage.usable)}
            className="relative h-1.5 w-20 overflow-hidden rounded-full bg-zinc-200"
          >
            <span className={`absolute inset-y-0 left-0 rounded-full ${tone}`} style={{ width: `${Math.min(percent ?? 0, 100)}%` }} />
          </span>
        ) : null}
        <span data-testid="context-meter-text" className="text-zinc-700">
          {formatCount(usage.used ?? 0)}
          {usage.usable !== undefined ? ` / ${formatCount(usage.usable)}` : ""}
          {percent !== undefined ? ` (${percent}%)` : usage.usable === undefined ? " tokens" : ""}
        </span>
      </span>
      {info.time.compacting !== undefined ? (
        <Badge tone="violet" data-testid="compacting">
          <Spinner className="size-3" /> Compacting…
        </Badge>
      ) : null}
    </span>
  );
}
