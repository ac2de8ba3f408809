import { OFFLINE_LABEL } from "../../provider/offline";
import { procedure, router } from "../init";

export const modelRouter = router({
  list: procedure.query(({ ctx }) => ({ models: ctx.models.available(), default: ctx.models.default(), offlineLabel: OFFLINE_LABEL })),
});
