import * as Command from "../../command/command";
import { procedure, router } from "../init";

/** Prompt commands: those a session can run (the `/` menu), and the team's own (owners and admins write them, members read them). */
export const commandRouter = router({
  list: procedure.input(Command.ListInput).query(({ ctx, input }) => Command.list(ctx, input)),
  teamList: procedure.query(({ ctx }) => Command.teamList(ctx)),
  teamSet: procedure.input(Command.TeamSetInput).mutation(({ ctx, input }) => Command.teamSet(ctx, input)),
  teamRemove: procedure.input(Command.TeamRemoveInput).mutation(({ ctx, input }) => Command.teamRemove(ctx, input)),
});
