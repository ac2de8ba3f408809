import type { ComponentType } from "react";
import type { IconName } from "../icons";
import { BashToolBody, bashSummary } from "./bash";
import { EditToolBody, PatchToolBody, ReadToolBody, WriteToolBody, fileSummary } from "./files";
import { GenericToolBody } from "./generic";
import { McpToolBody, mcpOrigin } from "./mcp";
import { SearchToolBody, searchSummary } from "./search";
import type { ToolState } from "@/components/chat/types";
import type { ToolBodyProps } from "./shared";
import { TaskToolBody, taskProgressLine, taskSummary } from "./task";
import { TodoToolBody } from "./todo";

/** How one tool is shown inside the shared tool card. */
export interface ToolRenderer {
  icon: IconName;
  Body: ComponentType<ToolBodyProps>;
  /** A one-line subtitle from the input, used until the tool reports its own title. */
  summary?: (input: Record<string, unknown>) => string | undefined;
  /** A live line for the collapsed card (a task's child's current tool and count). */
  progress?: (state: ToolState, partMetadata: Record<string, unknown> | undefined) => string | undefined;
}

/** One renderer per tool; a tool missing here gets the generic card. */
export const TOOL_RENDERERS: Record<string, ToolRenderer> = {
  bash: { icon: "terminal", Body: BashToolBody, summary: bashSummary },
  read: { icon: "file", Body: ReadToolBody, summary: fileSummary },
  write: { icon: "pencil", Body: WriteToolBody, summary: fileSummary },
  edit: { icon: "pencil", Body: EditToolBody, summary: fileSummary },
  patch: { icon: "diff", Body: PatchToolBody },
  apply_patch: { icon: "diff", Body: PatchToolBody },
  list: { icon: "list", Body: SearchToolBody, summary: searchSummary },
  glob: { icon: "search", Body: SearchToolBody, summary: searchSummary },
  grep: { icon: "search", Body: SearchToolBody, summary: searchSummary },
  task: { icon: "bot", Body: TaskToolBody, summary: taskSummary, progress: taskProgressLine },
  todowrite: { icon: "list", Body: TodoToolBody },
  todoread: { icon: "list", Body: TodoToolBody },
};

export const GENERIC_TOOL: ToolRenderer = { icon: "wrench", Body: GenericToolBody };

/** A team's tool server's tool (named `<server>_<tool>`, known by its metadata). */
export const MCP_TOOL: ToolRenderer = { icon: "wrench", Body: McpToolBody };

export function toolRenderer(tool: string, state?: ToolState): ToolRenderer {
  if (Object.hasOwn(TOOL_RENDERERS, tool)) return TOOL_RENDERERS[tool] ?? GENERIC_TOOL;
  return state && mcpOrigin(state) ? MCP_TOOL : GENERIC_TOOL;
}
