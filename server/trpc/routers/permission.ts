import { z } from "zod";
import * as Id from "../../id";
import { Reply } from "../../permission/events";
import { procedure, router } from "../init";

export const permissionRouter = router({
  pending: procedure
    .input(z.object({ sessionId: Id.schema("session") }))
    .query(({ ctx, input }) => ctx.runtime.permissions.pending(ctx.actor, input.sessionId)),
  reply: procedure
    .input(z.object({ requestId: Id.schema("permission"), reply: Reply, feedback: z.string().max(10_000).optional() }))
    .mutation(({ ctx, input }) => ctx.runtime.permissions.reply(ctx.actor, input)),
});
