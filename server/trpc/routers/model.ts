import { OFFLINE_LABEL } from "../../provider/offline";
import { availableModels, defaultModel } from "../../provider/provider";
import { procedure, router } from "../init";

export const modelRouter = router({
  list: procedure.query(({ ctx }) => ({
    models: availableModels(ctx.runtime.config),
    default: defaultModel(ctx.runtime.config),
    offlineLabel: OFFLINE_LABEL,
  })),
});
