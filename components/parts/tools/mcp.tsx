import type { ToolState } from "@/components/chat/types";
import { InputBlock, type ToolBodyProps, ToolResult, metadataOf } from "./shared";

/** Where a tool server's call comes from (its metadata.mcp), once the call reported it. */
export function mcpOrigin(state: ToolState): { server: string; tool: string } | undefined {
  const mcp = metadataOf(state)?.mcp;
  if (typeof mcp !== "object" || mcp === null || !("server" in mcp) || !("tool" in mcp)) return undefined;
  return typeof mcp.server === "string" && typeof mcp.tool === "string" ? { server: mcp.server, tool: mcp.tool } : undefined;
}

/**
 * A call of a team's tool server (MCP): which server and tool, its input, then what the
 * server answered — text (resources included, as text) and images as attachments. The
 * answer is untrusted: shown as plain text, never as markup.
 */
export function McpToolBody({ state, input }: ToolBodyProps) {
  const origin = mcpOrigin(state);
  return (
    <div className="space-y-3" data-testid="mcp-result">
      {origin ? (
        <p data-testid="mcp-origin" className="text-xs text-zinc-500">
          Tool <span className="font-mono text-zinc-700">{origin.tool}</span> of the tool server <span className="font-mono text-zinc-700">{origin.server}</span> · its answer
          is untrusted content
        </p>
      ) : null}
      <InputBlock input={input} />
      <ToolResult state={state} />
    </div>
  );
}
