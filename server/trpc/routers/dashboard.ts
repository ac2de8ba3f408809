import { Dashboard } from "../../dashboard";
import { procedure, router } from "../init";

export const dashboardRouter = router({
  list: procedure.input(Dashboard.ListInput).query(({ ctx, input }) => Dashboard.list(ctx, input)),
  /** The team's sessions waiting for approval, shown first. */
  waiting: procedure.query(({ ctx }) => Dashboard.waiting(ctx)),
  /** The team's members, for the author filter. */
  authors: procedure.query(({ ctx }) => Dashboard.authors(ctx)),
});
