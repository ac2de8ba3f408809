import { z } from "zod";
import * as Providers from "../../provider/admin";
import { Spending } from "../../spending";
import { procedure, router } from "../init";

/** A team's providers, models and spending (server/provider/admin.ts, server/spending): keys are write-only. */
export const providerRouter = router({
  overview: procedure.query(({ ctx }) => Providers.overview(ctx)),
  setKey: procedure.input(Providers.SetKeyInput).mutation(({ ctx, input }) => Providers.setKey(ctx, input)),
  removeKey: procedure.input(z.object({ provider: Providers.Provider })).mutation(({ ctx, input }) => Providers.removeKey(ctx, input.provider)),
  test: procedure
    .input(z.object({ provider: Providers.Provider, modelId: z.string().min(1).max(200).optional() }))
    .mutation(({ ctx, input }) => Providers.test(ctx, input)),
  setModels: procedure.input(Providers.ModelsInput).mutation(({ ctx, input }) => Providers.setModels(ctx, input)),
  setLimits: procedure.input(Spending.LimitsInput).mutation(({ ctx, input }) => Spending.setLimits(ctx, input)),
  spending: procedure.query(({ ctx }) => Spending.summary(ctx)),
});
