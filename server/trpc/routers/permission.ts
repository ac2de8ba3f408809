import { z } from "zod";
import * as Id from "../../id";
import { refuseNul } from "../../nul";
import * as Approvals from "../../permission/approvals";
import { Reply } from "../../permission/events";
import * as Policy from "../../permission/policy";
import { procedure, router } from "../init";

export const permissionRouter = router({
  pending: procedure
    .input(z.object({ sessionId: Id.schema("session") }))
    .query(({ ctx, input }) => ctx.permissions.pending(ctx.actor, input.sessionId)),
  reply: procedure
    .input(z.object({ requestId: Id.schema("permission"), reply: Reply, feedback: refuseNul(z.string().max(10_000), "feedback").optional() }))
    .mutation(({ ctx, input }) => ctx.permissions.reply(ctx.actor, input)),
  /** Whether the caller may answer "always" to a question the policy asks (owners and admins). */
  canBypassPolicy: procedure.query(async ({ ctx }) => ({ allowed: await ctx.permissions.isAdmin(ctx.actor) })),
  /** The team's policy (no project) or a project's; every member may read it. */
  policy: procedure.input(Policy.PolicyScope).query(({ ctx, input }) => Policy.get(ctx, input)),
  /** Owners and admins: replace the team's or a project's policy. */
  setPolicy: procedure.input(Policy.SetPolicyInput).mutation(({ ctx, input }) => Policy.set(ctx, input)),
  /** The team's stored "Always allow" approvals, newest first. */
  approvals: procedure.input(Approvals.ListInput).query(({ ctx, input }) => Approvals.list(ctx, input)),
  /** Owners and admins: revoke one approval. */
  revoke: procedure.input(Approvals.RevokeInput).mutation(({ ctx, input }) => Approvals.revoke(ctx, input)),
});
