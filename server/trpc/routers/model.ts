import { modelsOf } from "../../provider/team";
import { OFFLINE_LABEL } from "../../provider/offline";
import { procedure, router } from "../init";

export const modelRouter = router({
  /** The actor's team's models (its enabled ones, with limits and prices) and its default. */
  list: procedure.query(async ({ ctx }) => {
    const models = await modelsOf(ctx, ctx.actor.teamId);
    return { models: models.available(), default: models.default(), offlineLabel: OFFLINE_LABEL };
  }),
});
