import * as Api from "../../mcp/api";
import { ToolServerConfig } from "../../mcp";
import { procedure, router } from "../init";

/** Tool servers (MCP): every member sees them and their tools; owners and admins add, change, remove and reconnect them. */
export const mcpRouter = router({
  list: procedure.input(ToolServerConfig.Scope).query(({ ctx, input }) => Api.list(ctx, input)),
  save: procedure.input(ToolServerConfig.SaveInput).mutation(({ ctx, input }) => ToolServerConfig.save(ctx, input)),
  remove: procedure.input(ToolServerConfig.RemoveInput).mutation(({ ctx, input }) => ToolServerConfig.remove(ctx, input)),
  /** Any member: what the enabled servers' tools take of the team's default model's context, with a warning when it is much. */
  budget: procedure.input(ToolServerConfig.Scope).query(({ ctx, input }) => Api.budget(ctx, input)),
  refresh: procedure.input(Api.RefreshInput).mutation(({ ctx, input }) => Api.refresh(ctx, input)),
  /** Owners and admins: start an OAuth server's "Connect" (the answer is the authorization page to open). */
  connect: procedure.input(Api.ConnectInput).mutation(({ ctx, input }) => Api.connect(ctx, input)),
});
