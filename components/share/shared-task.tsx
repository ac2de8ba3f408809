import { ToolResult, type ToolBodyProps, ToolSection, field, metadataOf } from "@/components/parts/tools/shared";
import { childCalls, progressLine } from "@/components/parts/tools/task-progress";
import { taskAnswer } from "@/lib/task-result";
import { SharedMarkdown } from "./shared-markdown";

/**
 * A task (subagent) call on a share page, rendered on the server: the job, the child's
 * progress in one line, and its final answer as markdown — never the `task_id` protocol
 * the model reads. The child session itself is in the page's child list.
 */
export function SharedTaskBody({ part, state, input, title }: ToolBodyProps) {
  const description = field(input, "description");
  const agent = field(input, "subagent_type", "agent");
  const metadata = metadataOf(state) ?? part.metadata;
  const progress = progressLine(childCalls(metadata), state.status === "running");
  const answer = state.status === "completed" ? (typeof metadata?.answer === "string" ? metadata.answer : taskAnswer(state.output)) : undefined;
  return (
    <div className="space-y-3">
      <p className="text-sm text-zinc-700">
        {agent ? <span className="mr-2 font-mono text-violet-800">@{agent}</span> : null}
        {description && description !== title ? description : null}
      </p>
      {progress ? (
        <p data-testid="task-progress" className="text-xs text-zinc-500">
          {progress}
        </p>
      ) : null}
      {answer !== undefined ? (
        <ToolSection label="Result">
          <div data-testid="task-answer">
            <SharedMarkdown text={answer} className="rounded-lg bg-zinc-50 p-3 text-sm ring-1 ring-zinc-200" />
          </div>
        </ToolSection>
      ) : (
        <ToolResult state={state} />
      )}
    </div>
  );
}
