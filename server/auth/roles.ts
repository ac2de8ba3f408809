import { ParleyError } from "../errors";
import type { Acting } from "../actor";

export type TeamRole = "owner" | "admin" | "member";

/** Team admins: owners and admins. */
export const ADMIN_ROLES: readonly TeamRole[] = ["owner", "admin"];

/**
 * The actor's role in their team, read from the database (not from the request), so a
 * demotion or removal takes effect at once. FORBIDDEN unless it is one of `roles`.
 */
export async function requireRole(ctx: Acting, roles: readonly TeamRole[], action: string): Promise<TeamRole> {
  const membership = await ctx.db.membership.findUnique({
    where: { teamId_userId: { teamId: ctx.actor.teamId, userId: ctx.actor.userId } },
    select: { role: true },
  });
  if (!membership) throw new ParleyError("FORBIDDEN", "You are not a member of this team.");
  if (!roles.includes(membership.role)) throw new ParleyError("FORBIDDEN", `Only team ${roles.map((role) => `${role}s`).join(" and ")} can ${action}.`);
  return membership.role;
}
