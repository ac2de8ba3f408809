import type { z } from "zod";
import { bash } from "./bash";
import { edit } from "./edit";
import { glob } from "./glob";
import { grep } from "./grep";
import { list } from "./list";
import { read } from "./read";
import { todoread, todowrite } from "./todo";
import { ToolError, type Tool, type ToolContext, type ToolResult } from "./tool";
import { truncateOutput } from "./truncate";
import { write } from "./write";
import { task } from "./task";

/** The built-in tools, in the order the model sees them. (`task` runs subagents.) */
export function builtinTools(): Tool[] {
  return [read, list, glob, grep, write, edit, bash, todowrite, todoread, task];
}

/**
 * How each tool's output is cut. `read` bounds its own output (lines, bytes, offset hint),
 * so it is left alone; for `bash` the end (errors, summaries) matters most.
 */
const OUTPUT_POLICY: Record<string, "head" | "tail" | "self"> = {
  read: "self",
  bash: "tail",
};

/** A readable list of schema issues, so the model can correct its call. */
export function describeIssues(toolId: string, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "(input)";
    return `- ${where}: ${issue.message}`;
  });
  return `Invalid input for the ${toolId} tool:\n${lines.join("\n")}\nPlease fix the arguments and call the tool again.`;
}

/**
 * Validate the model's input with the tool's schema, run the tool, and truncate its output
 * (the full text is saved in the session's saved-output folder). Invalid input is a ToolError
 * listing the issues; errors from the tool (including permission rejections) propagate.
 */
export async function executeTool(tool: Tool, rawInput: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = tool.parameters.safeParse(rawInput);
  if (!parsed.success) throw new ToolError(describeIssues(tool.id, parsed.error.issues));
  const result = await tool.execute(parsed.data, ctx);
  const policy = OUTPUT_POLICY[tool.id] ?? "head";
  if (policy === "self") return result;
  const cut = await truncateOutput(result.output, {
    outputDir: ctx.outputDir,
    callId: ctx.callId,
    canUseTask: ctx.canUse("task"),
    direction: policy,
  });
  if (!cut.truncated) return result;
  return { ...result, output: cut.content, metadata: { ...result.metadata, truncated: true, outputPath: cut.outputPath } };
}
