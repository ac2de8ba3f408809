"use client";

import type { ReactNode } from "react";
import type { WithParts } from "@/components/chat/types";
import { formatCost, formatCount } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";
import type { SessionInfo } from "./types";

/**
 * What the session header folds away (session-page.tsx): when it was updated, its
 * working directory and model, the session's actions and share link (`children`), and
 * the usage of each step of the loaded conversation — kept out of the transcript, which
 * shows the conversation itself.
 */
export function SessionDetails({ id, session, messages, children }: { id: string; session: SessionInfo; messages: WithParts[]; children: ReactNode }) {
  return (
    <section id={id} aria-label="Session details" data-testid="session-details" className="space-y-3 rounded-xl bg-white p-3 text-xs text-zinc-500 shadow-sm ring-1 ring-zinc-200">
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
        <dt>Updated</dt>
        <dd>
          <RelativeTime time={session.time.updated} />
        </dd>
        <dt>Directory</dt>
        {/* A workspace's path is long and unbroken: cut to the width, whole on hover. */}
        <dd className="min-w-0 truncate font-mono" title={`Working directory: ${session.directory}`} data-testid="session-directory">
          {session.directory}
        </dd>
        {session.model ? (
          <>
            <dt>Model</dt>
            <dd className="font-mono">
              {session.model.providerId}/{session.model.modelId}
            </dd>
          </>
        ) : null}
      </dl>
      {children}
      <StepUsage messages={messages} />
    </section>
  );
}

/** Tokens and cost of each step of the loaded replies, newest last (an estimate marked "≈"). */
function StepUsage({ messages }: { messages: WithParts[] }) {
  const steps = messages.flatMap((message) => message.parts.flatMap((part) => (part.type === "step-finish" ? [part] : [])));
  if (steps.length === 0) return null;
  return (
    <div>
      <h3 className="mb-1 font-semibold text-zinc-700">Steps</h3>
      <ol data-testid="step-usage" className="max-h-48 space-y-0.5 overflow-auto tabular-nums">
        {steps.map((step, index) => (
          <li key={step.id} data-testid="step-usage-row" data-estimated={step.estimated ? "true" : undefined} className="flex flex-wrap gap-x-3">
            <span className="w-8 text-zinc-400">#{index + 1}</span>
            <span title="Input / output tokens">
              {step.estimated ? "≈ " : ""}
              {formatCount(step.tokens.input)} in · {formatCount(step.tokens.output)} out
            </span>
            {step.tokens.reasoning > 0 ? <span>{formatCount(step.tokens.reasoning)} reasoning</span> : null}
            {step.tokens.cache.read > 0 || step.tokens.cache.write > 0 ? (
              <span title="Cache read / write tokens">
                cache {formatCount(step.tokens.cache.read)}/{formatCount(step.tokens.cache.write)}
              </span>
            ) : null}
            <span className="font-mono text-zinc-700">{formatCost(step.cost)}</span>
            {step.estimated ? <span className="text-amber-700">estimated (stopped)</span> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
