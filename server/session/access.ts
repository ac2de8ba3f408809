import * as Id from "../id";
import { ParleyError } from "../errors";
import type { Project as ProjectRow } from "../db/generated/client";
import type { Acting } from "../actor";
import { SHARE_COLUMNS, type SessionWithShareColumns, withShare } from "./rows";

/**
 * The one authorization rule of the session module: a session is visible only inside
 * its team. Another team's session is reported as not found, so ids cannot be probed.
 */
export async function sessionRow(ctx: Acting, sessionId: string) {
  Id.assert("session", sessionId);
  // Read on every request about a session: one statement with its share link.
  const [found] = await ctx.db.$queryRaw<SessionWithShareColumns[]>`
    SELECT s.*, ${SHARE_COLUMNS} FROM "Session" s LEFT JOIN "Share" sh ON sh."sessionId" = s.id WHERE s.id = ${sessionId}`;
  if (!found || found.teamId !== ctx.actor.teamId) throw ParleyError.notFound("session", sessionId);
  return withShare(found);
}

export async function projectRow(ctx: Acting, projectId: string) {
  Id.assert("project", projectId);
  const [row] = await ctx.db.$queryRaw<ProjectRow[]>`SELECT * FROM "Project" WHERE id = ${projectId}`;
  if (!row || row.teamId !== ctx.actor.teamId) throw ParleyError.notFound("project", projectId);
  return row;
}
