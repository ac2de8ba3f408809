import { procedure, router } from "../init";

export const teamRouter = router({
  /** The team the caller is working in (its live event stream is keyed by this id). */
  current: procedure.query(({ ctx }) => ({ id: ctx.actor.teamId })),
});
