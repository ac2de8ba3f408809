import { Presence } from "../../presence";
import { procedure, router } from "../init";

export const presenceRouter = router({
  /** Who views (and types in) which session of the team now; live changes come on the team's stream. */
  list: procedure.query(({ ctx }) => Presence.list(ctx)),
  /** This tab has the session open (a heartbeat, every `heartbeatMs`). */
  beat: procedure.input(Presence.BeatInput).mutation(({ ctx, input }) => Presence.beat(ctx, input)),
  /** This tab left the session. */
  leave: procedure.input(Presence.LeaveInput).mutation(({ ctx, input }) => Presence.leave(ctx, input)),
});
