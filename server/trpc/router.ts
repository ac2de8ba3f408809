import { router } from "./init";
import { messageRouter } from "./routers/message";
import { projectRouter } from "./routers/project";
import { sessionRouter } from "./routers/session";

export const appRouter = router({
  session: sessionRouter,
  message: messageRouter,
  project: projectRouter,
});
export type AppRouter = typeof appRouter;
