import { Workspace } from "../../workspace";
import { procedure, router } from "../init";

/** A session's workspace: where its work stands, its diff, and getting it out (commit, push, merge, update, patch). */
export const workspaceRouter = router({
  status: procedure.input(Workspace.SessionInput).query(({ ctx, input }) => Workspace.status(ctx, input)),
  diff: procedure.input(Workspace.SessionInput).query(({ ctx, input }) => Workspace.diff(ctx, input)),
  draftMessage: procedure.input(Workspace.SessionInput).mutation(({ ctx, input }) => Workspace.draftMessage(ctx, input)),
  commit: procedure.input(Workspace.CommitInput).mutation(({ ctx, input }) => Workspace.commit(ctx, input)),
  push: procedure.input(Workspace.SessionInput).mutation(({ ctx, input }) => Workspace.push(ctx, input)),
  merge: procedure.input(Workspace.SessionInput).mutation(({ ctx, input }) => Workspace.merge(ctx, input)),
  update: procedure.input(Workspace.SessionInput).mutation(({ ctx, input }) => Workspace.update(ctx, input)),
  patch: procedure.input(Workspace.PatchInput).query(({ ctx, input }) => Workspace.patch(ctx, input)),
  /** Disk use per project and the live-workspace cap (owners and admins). */
  usage: procedure.query(({ ctx }) => Workspace.usage(ctx)),
});
