import { router } from "./init";
import { agentRouter } from "./routers/agent";
import { commandRouter } from "./routers/command";
import { dashboardRouter } from "./routers/dashboard";
import { instructionsRouter } from "./routers/instructions";
import { mcpRouter } from "./routers/mcp";
import { messageRouter } from "./routers/message";
import { modelRouter } from "./routers/model";
import { permissionRouter } from "./routers/permission";
import { presenceRouter } from "./routers/presence";
import { projectRouter } from "./routers/project";
import { searchRouter } from "./routers/search";
import { providerRouter } from "./routers/provider";
import { secretRouter } from "./routers/secret";
import { sessionRouter } from "./routers/session";
import { shareRouter } from "./routers/share";
import { sidebarRouter } from "./routers/sidebar";
import { teamRouter } from "./routers/team";
import { workspaceRouter } from "./routers/workspace";

export const appRouter = router({
  session: sessionRouter,
  message: messageRouter,
  project: projectRouter,
  permission: permissionRouter,
  presence: presenceRouter,
  model: modelRouter,
  dashboard: dashboardRouter,
  share: shareRouter,
  sidebar: sidebarRouter,
  team: teamRouter,
  secret: secretRouter,
  workspace: workspaceRouter,
  instructions: instructionsRouter,
  command: commandRouter,
  agent: agentRouter,
  search: searchRouter,
  provider: providerRouter,
  mcp: mcpRouter,
});
export type AppRouter = typeof appRouter;
