import { Dashboard } from "../../dashboard";
import { procedure, router } from "../init";

export const dashboardRouter = router({
  list: procedure.input(Dashboard.ListInput).query(({ ctx, input }) => Dashboard.list(ctx, input)),
});
