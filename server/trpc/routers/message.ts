import { z } from "zod";
import * as Id from "../../id";
import { Session } from "../../session";
import { procedure, router } from "../init";

const InSession = z.object({ sessionId: Id.schema("session") });

export const messageRouter = router({
  page: procedure
    .input(InSession.extend(Session.MessagesInput.shape))
    .query(({ ctx, input }) => Session.messages(ctx, input.sessionId, { limit: input.limit, before: input.before })),
  get: procedure
    .input(InSession.extend({ messageId: Id.schema("message") }))
    .query(({ ctx, input }) => Session.message(ctx, input.sessionId, input.messageId)),
  /** What a user message's turn changed in the project's files. */
  diff: procedure.input(Session.TurnDiffInput).query(({ ctx, input }) => Session.diffOfTurn(ctx, input)),
  /** Withdraw a message queued behind the running reply, before the model has read it. */
  cancelQueued: procedure.input(Session.CancelQueuedInput).mutation(({ ctx, input }) => Session.cancelQueued(ctx, input)),
  part: procedure
    .input(InSession.extend({ partId: Id.schema("part") }))
    .query(({ ctx, input }) => Session.part(ctx, input.sessionId, input.partId)),
});
