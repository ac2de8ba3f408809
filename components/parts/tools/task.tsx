import Link from "next/link";
import { Badge, type Tone } from "@/components/ui/badge";
import { Markdown } from "../markdown";
import { useSessionHref } from "../session-link";
import { type ToolBodyProps, ToolSection, ToolResult, field, metadataOf } from "./shared";

interface ChildCall {
  tool: string;
  status: string;
  title: string | undefined;
}

/** metadata.summary: the child session's tool calls with their states, read defensively. */
function childCalls(metadata: Record<string, unknown> | undefined): ChildCall[] {
  const summary = metadata?.summary;
  if (!Array.isArray(summary)) return [];
  const calls: ChildCall[] = [];
  for (const item of summary) {
    if (typeof item !== "object" || item === null) continue;
    const record = item as Record<string, unknown>;
    const state = typeof record.state === "object" && record.state !== null ? (record.state as Record<string, unknown>) : record;
    const tool = field(record, "tool", "name");
    if (!tool) continue;
    calls.push({ tool, status: field(state, "status") ?? "unknown", title: field(state, "title") });
  }
  return calls;
}

const TONE: Record<string, Tone> = { pending: "neutral", running: "blue", completed: "green", error: "red" };

/** A subagent run in a child session: its prompt, live progress and final answer. */
export function TaskToolBody({ part, state, input, title }: ToolBodyProps) {
  const description = field(input, "description");
  const agent = field(input, "subagent_type", "agent");
  const prompt = field(input, "prompt");
  const metadata = metadataOf(state) ?? part.metadata;
  const childId = field(metadata, "sessionId");
  const calls = childCalls(metadata);
  const sessionHref = useSessionHref();
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        {agent ? <Badge tone="violet">@{agent}</Badge> : null}
        {description && description !== title ? <span className="text-zinc-700">{description}</span> : null}
        {childId ? (
          <Link href={sessionHref(childId)} data-testid="open-child" className="ml-auto text-xs font-medium text-indigo-600 hover:text-indigo-800">
            Open child session →
          </Link>
        ) : null}
      </div>
      {prompt ? (
        <details>
          <summary className="cursor-pointer text-xs font-medium text-zinc-500 select-none hover:text-zinc-800">Prompt</summary>
          <Markdown text={prompt} className="mt-1.5 rounded-lg bg-zinc-50 p-2.5 text-sm ring-1 ring-zinc-200" />
        </details>
      ) : null}
      {calls.length ? (
        <ToolSection label="Progress">
          <ul className="space-y-1 text-sm">
            {calls.map((call, i) => (
              <li key={i} className="flex items-center gap-2" data-testid="task-progress-item" data-status={call.status}>
                <Badge tone={TONE[call.status] ?? "neutral"}>{call.status}</Badge>
                <span className="font-mono text-[13px] text-zinc-700">{call.tool}</span>
                {call.title ? <span className="truncate text-zinc-500">{call.title}</span> : null}
              </li>
            ))}
          </ul>
        </ToolSection>
      ) : null}
      {state.status === "completed" ? (
        <ToolSection label="Result">
          <Markdown text={state.output} className="rounded-lg bg-zinc-50 p-3 text-sm ring-1 ring-zinc-200" />
        </ToolSection>
      ) : (
        <ToolResult state={state} />
      )}
    </div>
  );
}

export const taskSummary = (input: Record<string, unknown>) => field(input, "description");
