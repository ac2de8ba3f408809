import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { ParleyError } from "../errors";
import * as Id from "../id";
import type { Context } from "../services";

/**
 * The team's stored "Always allow" answers: what each one allows, in which project and
 * for which agent, who granted it and when. Every member may see them (they apply to the
 * whole team); owners and admins revoke them, after which the next matching call asks
 * again. An approval whose grantor is an owner or admin (`byAdmin`) also answers the
 * questions the server config or the team's or project's policy asks (layers.ts); a
 * member's never does.
 */

export const ListInput = z.object({ projectId: Id.schema("project").optional() });
export type ListInput = z.infer<typeof ListInput>;

export interface Approval {
  id: string;
  projectId: string;
  projectName: string;
  agent: string;
  permission: string;
  pattern: string;
  grantedBy: { id: string; name: string } | null;
  /** Its grantor is an owner or admin of the team now: it also answers policy questions. */
  byAdmin: boolean;
  createdAt: number;
}

/** At most this many are listed (newest first); a team has far fewer in practice. */
const LIMIT = 1000;

export async function list(ctx: Pick<Context, "db" | "actor">, input: ListInput = {}): Promise<Approval[]> {
  const { projectId } = ListInput.parse(input);
  const rows = await ctx.db.permissionApproval.findMany({
    where: { teamId: ctx.actor.teamId, ...(projectId ? { projectId } : {}) },
    include: { project: { select: { name: true } }, grantedBy: { select: { id: true, name: true } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: LIMIT,
  });
  const grantors = [...new Set(rows.flatMap((row) => (row.grantedById ? [row.grantedById] : [])))];
  const admins = new Set(
    (await ctx.db.membership.findMany({ where: { teamId: ctx.actor.teamId, userId: { in: grantors }, role: { in: [...ADMIN_ROLES] } }, select: { userId: true } })).map((m) => m.userId),
  );
  return rows.map((row) => ({
    id: row.id,
    projectId: row.projectId,
    projectName: row.project.name,
    agent: row.agent,
    permission: row.permission,
    pattern: row.pattern,
    grantedBy: row.grantedBy,
    byAdmin: row.grantedById !== null && admins.has(row.grantedById),
    createdAt: row.createdAt.getTime(),
  }));
}

export const RevokeInput = z.object({ approvalId: Id.schema("approval") });

/** Delete one approval of the team (owners and admins only). */
export async function revoke(ctx: Pick<Context, "db" | "actor">, input: z.infer<typeof RevokeInput>): Promise<void> {
  const { approvalId } = RevokeInput.parse(input);
  await requireRole(ctx, ADMIN_ROLES, "revoke approvals");
  const deleted = await ctx.db.permissionApproval.deleteMany({ where: { id: approvalId, teamId: ctx.actor.teamId } });
  if (deleted.count === 0) throw ParleyError.notFound("approval", approvalId);
}
