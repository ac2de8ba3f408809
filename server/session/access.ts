import * as Id from "../id";
import { ParleyError } from "../errors";
import type { Context } from "../services";

/**
 * The one authorization rule of the session module: a session is visible only inside
 * its team. Another team's session is reported as not found, so ids cannot be probed.
 */
export async function sessionRow(ctx: Context, sessionId: string) {
  Id.assert("session", sessionId);
  const row = await ctx.db.session.findUnique({ where: { id: sessionId }, include: { share: true } });
  if (!row || row.teamId !== ctx.actor.teamId) throw ParleyError.notFound("session", sessionId);
  return row;
}

export async function projectRow(ctx: Context, projectId: string) {
  Id.assert("project", projectId);
  const row = await ctx.db.project.findUnique({ where: { id: projectId } });
  if (!row || row.teamId !== ctx.actor.teamId) throw ParleyError.notFound("project", projectId);
  return row;
}
