import { Sidebar } from "../../sidebar";
import { procedure, router } from "../init";

export const sidebarRouter = router({
  /** The team's recent sessions by project, children nested, with status, questions, failures and branches. */
  recent: procedure.input(Sidebar.RecentInput).query(({ ctx, input }) => Sidebar.recent(ctx, input)),
});
