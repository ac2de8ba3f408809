import Link from "next/link";
import { Badge, type Tone } from "@/components/ui/badge";
import { Markdown } from "../markdown";
import { useSessionHref } from "../session-link";
import { taskAnswer } from "@/lib/task-result";
import { type ToolBodyProps, ToolSection, ToolResult, field, metadataOf } from "./shared";
import { childCalls, progressLine } from "./task-progress";

/** metadata.answer: the child's final answer; a call stored before calls kept it: the answer inside its output. */
function answerOf(metadata: Record<string, unknown> | undefined, output: string): string {
  const answer = metadata?.answer;
  return typeof answer === "string" ? answer : taskAnswer(output);
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
          <div data-testid="task-answer">
            <Markdown text={answerOf(metadata, state.output)} className="rounded-lg bg-zinc-50 p-3 text-sm ring-1 ring-zinc-200" />
          </div>
        </ToolSection>
      ) : (
        <ToolResult state={state} />
      )}
    </div>
  );
}

export const taskSummary = (input: Record<string, unknown>) => field(input, "description");

/** The collapsed card's progress: the child's current tool and how many calls it made. */
export function taskProgressLine(state: ToolBodyProps["state"], partMetadata: Record<string, unknown> | undefined): string | undefined {
  return progressLine(childCalls(metadataOf(state) ?? partMetadata), state.status === "running");
}
