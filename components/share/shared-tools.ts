import type { ToolState } from "@/components/chat/types";
import type { IconName } from "@/components/parts/icons";
import { BashToolBody, bashSummary } from "@/components/parts/tools/bash";
import { GenericToolBody } from "@/components/parts/tools/generic";
import { McpToolBody, mcpOrigin } from "@/components/parts/tools/mcp";
import { SearchToolBody, searchSummary } from "@/components/parts/tools/search";
import { field } from "@/components/parts/tools/shared";
import { TodoToolBody } from "@/components/parts/tools/todo";
import type { ToolRenderer } from "@/components/parts/tools/registry";
import { SharedTaskBody } from "./shared-task";

/**
 * How a share page (rendered on the server, shared-message.tsx) shows each tool: the
 * chat's own bodies where they are plain markup (bash, search, todo, tool servers'),
 * a task's own (shared-task.tsx: the child's answer, rendered here), the generic one (input,
 * then result) for the rest — the file views are interactive client code (highlighting on
 * demand, diffs) that a share page's JavaScript does not carry. Imported one by one, not through the chat's
 * registry, so none of that is in the page's bundle.
 */
const path = (input: Record<string, unknown>) => field(input, "filePath", "path");
const file = (icon: IconName): ToolRenderer => ({ icon, Body: GenericToolBody, summary: path });

const SHARED_TOOLS: Record<string, ToolRenderer> = {
  bash: { icon: "terminal", Body: BashToolBody, summary: bashSummary },
  read: file("file"),
  write: file("pencil"),
  edit: file("pencil"),
  patch: { icon: "diff", Body: GenericToolBody },
  apply_patch: { icon: "diff", Body: GenericToolBody },
  list: { icon: "list", Body: SearchToolBody, summary: searchSummary },
  glob: { icon: "search", Body: SearchToolBody, summary: searchSummary },
  grep: { icon: "search", Body: SearchToolBody, summary: searchSummary },
  task: { icon: "bot", Body: SharedTaskBody, summary: (input) => field(input, "description") },
  todowrite: { icon: "list", Body: TodoToolBody },
  todoread: { icon: "list", Body: TodoToolBody },
};

export function sharedToolRenderer(tool: string, state: ToolState): ToolRenderer {
  if (Object.hasOwn(SHARED_TOOLS, tool)) return SHARED_TOOLS[tool] ?? { icon: "wrench", Body: GenericToolBody };
  return { icon: "wrench", Body: mcpOrigin(state) ? McpToolBody : GenericToolBody };
}
