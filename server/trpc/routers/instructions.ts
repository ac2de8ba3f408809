import { Instructions } from "../../instructions";
import { procedure, router } from "../init";

/** What the team and its projects tell the agent (SPEC §17): every member reads, owners and admins write. */
export const instructionsRouter = router({
  /** The team's instructions (no project) or a project's. */
  get: procedure.input(Instructions.Scope).query(({ ctx, input }) => Instructions.get(ctx, input)),
  /** Owners and admins: replace the team's or a project's instructions (empty: none). */
  set: procedure.input(Instructions.SetInput).mutation(({ ctx, input }) => Instructions.set(ctx, input)),
  /** One source a turn of a session used, as it reads now. */
  open: procedure.input(Instructions.OpenInput).query(({ ctx, input }) => Instructions.open(ctx, input)),
});
