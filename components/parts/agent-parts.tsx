import type { PartOf } from "@/components/chat/types";
import { Icon } from "./icons";
import { Markdown } from "./markdown";

/** A mention of an agent (e.g. "@explore") in a user message. */
export function AgentPartView({ part }: { part: PartOf<"agent"> }) {
  return (
    <span className="inline-flex items-center gap-1 rounded-full bg-violet-50 px-2.5 py-0.5 text-xs font-medium text-violet-700 ring-1 ring-violet-600/20 ring-inset">
      <Icon name="bot" className="size-3.5" />@{part.name}
    </span>
  );
}

/** A task handed to a subagent. */
export function SubtaskPartView({ part }: { part: PartOf<"subtask"> }) {
  return (
    <div className="rounded-xl border border-violet-200 bg-violet-50/50 px-3.5 py-2.5">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <Icon name="bot" className="size-4 text-violet-500" />
        <span className="font-medium text-violet-900">Subtask for @{part.agent}</span>
        {part.model ? (
          <span className="font-mono text-xs text-violet-600">
            {part.model.providerId}/{part.model.modelId}
          </span>
        ) : null}
      </div>
      <p className="mt-1 text-sm text-zinc-700">{part.description}</p>
      {part.prompt.trim() ? (
        <details className="group mt-1.5">
          <summary className="cursor-pointer text-xs font-medium text-violet-700 select-none hover:text-violet-900">Prompt</summary>
          <Markdown text={part.prompt} className="mt-1.5 rounded-lg bg-white p-2.5 text-sm ring-1 ring-violet-100" />
        </details>
      ) : null}
    </div>
  );
}
