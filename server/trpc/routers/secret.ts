import { z } from "zod";
import { Secrets } from "../../secrets";
import { procedure, router } from "../init";

/** Team secrets: write-only values — `set` answers with the secret's metadata, never its value. */
export const secretRouter = router({
  list: procedure.query(({ ctx }) => Secrets.list(ctx)),
  set: procedure.input(Secrets.SetInput).mutation(({ ctx, input }) => Secrets.set(ctx, input)),
  remove: procedure.input(z.object({ name: Secrets.Name })).mutation(({ ctx, input }) => Secrets.remove(ctx, input.name)),
});
