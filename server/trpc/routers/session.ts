import { z } from "zod";
import * as Id from "../../id";
import * as Command from "../../command/command";
import { Session } from "../../session";
import * as Shell from "../../session/shell";
import { procedure, router, workProcedure } from "../init";

const ById = z.object({ sessionId: Id.schema("session") });

export const sessionRouter = router({
  list: procedure.input(Session.ListInput).query(({ ctx, input }) => Session.list(ctx, input)),
  get: procedure.input(ById).query(({ ctx, input }) => Session.get(ctx, input.sessionId)),
  children: procedure.input(ById).query(({ ctx, input }) => Session.children(ctx, input.sessionId)),
  create: procedure.input(Session.CreateInput).mutation(({ ctx, input }) => Session.create(ctx, input)),
  update: procedure
    .input(ById.extend({ patch: Session.UpdateInput }))
    .mutation(({ ctx, input }) => Session.update(ctx, input.sessionId, input.patch)),
  remove: procedure.input(ById).mutation(({ ctx, input }) => Session.remove(ctx, input.sessionId)),
  fork: procedure.input(Session.ForkInput).mutation(({ ctx, input }) => Session.fork(ctx, input)),
  touch: procedure.input(ById).mutation(({ ctx, input }) => Session.touch(ctx, input.sessionId)),
  share: procedure.input(ById).mutation(({ ctx, input }) => Session.share(ctx, input.sessionId)),
  unshare: procedure.input(ById).mutation(({ ctx, input }) => Session.unshare(ctx, input.sessionId)),
  prompt: workProcedure.input(Session.PromptInput).mutation(({ ctx, input }) => Session.prompt(ctx, input)),
  abort: procedure.input(ById).mutation(({ ctx, input }) => Session.abort(ctx, input.sessionId)),
  /** A failed model call waiting for its next attempt: make it now, or make no more (the turn ends with its error). */
  retryNow: procedure.input(Session.RetryControlInput).mutation(({ ctx, input }) => Session.retryNow(ctx, input.sessionId)),
  stopRetrying: procedure.input(Session.RetryControlInput).mutation(({ ctx, input }) => Session.stopRetrying(ctx, input.sessionId)),
  revert: procedure.input(Session.RevertInput).mutation(({ ctx, input }) => Session.revert(ctx, input)),
  unrevert: procedure.input(Session.UnrevertInput).mutation(({ ctx, input }) => Session.unrevert(ctx, input)),
  /** The points of the conversation with earlier versions (an edit, a regenerate), and switching to one, files included. */
  versions: procedure.input(Session.VersionsInput).query(({ ctx, input }) => Session.versions(ctx, input)),
  switchVersion: procedure.input(Session.SwitchVersionInput).mutation(({ ctx, input }) => Session.switchVersion(ctx, input)),
  rerun: workProcedure.input(Session.RerunInput).mutation(({ ctx, input }) => Session.rerun(ctx, input)),
  /** `/name arguments`: a prompt command (server/command/command.ts). */
  command: workProcedure.input(Command.RunInput).mutation(({ ctx, input }) => Command.run(ctx, input)),
  /** `!command`: run by the member in the session's sandbox, its output kept for the next prompt. */
  shell: workProcedure.input(Shell.ShellInput).mutation(({ ctx, input }) => Shell.shell(ctx, input)),
  compact: workProcedure.input(Session.CompactInput).mutation(({ ctx, input }) => Session.compact(ctx, input)),
  /** Files of the session's project matching what follows an `@` in the composer. */
  files: procedure.input(Session.FilesInput).query(({ ctx, input }) => Session.files(ctx, input)),
});
