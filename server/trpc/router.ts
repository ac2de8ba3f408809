import { router } from "./init";
import { messageRouter } from "./routers/message";
import { modelRouter } from "./routers/model";
import { permissionRouter } from "./routers/permission";
import { projectRouter } from "./routers/project";
import { sessionRouter } from "./routers/session";

export const appRouter = router({
  session: sessionRouter,
  message: messageRouter,
  project: projectRouter,
  permission: permissionRouter,
  model: modelRouter,
});
export type AppRouter = typeof appRouter;
