import { z } from "zod";
import { taskOutput } from "../../lib/task-result";
import { type SubagentResult, define } from "./tool";

/**
 * The task tool: hands a job to a subagent, which works in a child session of this one
 * with its own context and its agent's tools, and answers with its final text. The card
 * of the call shows the child's tool calls live (metadata `{sessionId, summary}`).
 */

const DESCRIPTION = [
  "Hand a self-contained job to a subagent. It works in a child session with its own context (it does not see this conversation) and answers with its final message, which only you read.",
  "- Give it a complete prompt: what to do, where to look, and what to report back.",
  "- Several task calls in one step run in parallel.",
  "- To continue a subagent's work, call task again with the task_id its earlier answer gave.",
].join("\n");

/** A finished task as its call stores it: the model reads how to continue it and the answer (the output); people read the answer (metadata). */
export function taskResult(result: SubagentResult): { output: string; metadata: { sessionId: string; summary: SubagentResult["summary"]; answer: string } } {
  return { output: taskOutput(result.sessionId, result.text), metadata: { sessionId: result.sessionId, summary: result.summary, answer: result.text } };
}

export const task = define({
  id: "task",
  description: DESCRIPTION,
  describe: ({ subagents }) => [DESCRIPTION, "Subagents:", ...subagents.map((agent) => `- ${agent.name}: ${agent.description}`)].join("\n"),
  parameters: z.object({
    description: z.string().min(1).max(100).describe("A short (3-5 words) description of the job."),
    prompt: z.string().min(1).max(100_000).describe("The job, in full: the subagent sees nothing else."),
    subagent_type: z.string().min(1).max(100).describe("Which subagent does the job."),
    task_id: z.string().min(1).max(100).optional().describe("The task_id of an earlier task, to continue in its session."),
  }),
  async execute(input, ctx) {
    const result = await ctx.task({
      description: input.description,
      prompt: input.prompt,
      agent: input.subagent_type,
      ...(input.task_id ? { taskId: input.task_id } : {}),
    });
    return { title: input.description, ...taskResult(result) };
  },
});
