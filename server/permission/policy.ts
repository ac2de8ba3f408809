import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { type Db, Prisma } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import type { Acting } from "../actor";
import { Ruleset } from "./schema";
import { parse } from "../fn";

/**
 * A team's permission policy: rules for all its projects, and per project, kept in
 * PostgreSQL and edited by the team's owners and admins (the Team page). They come after
 * the server config and before agents, approvals and session rules; their denies are
 * final (layers.ts).
 */

export const PolicyScope = z.object({ projectId: Id.schema("project").optional() });
export type PolicyScope = z.infer<typeof PolicyScope>;

export const SetPolicyInput = PolicyScope.extend({ rules: Ruleset });
export type SetPolicyInput = z.infer<typeof SetPolicyInput>;

export interface Policy {
  team: Ruleset;
  project: Ruleset;
}

export function rulesOf(value: unknown, where: string): Ruleset {
  if (value === null || value === undefined) return [];
  const parsed = Ruleset.safeParse(value);
  // A policy that cannot be read must not silently become "no policy" (which would loosen it).
  if (!parsed.success) throw new ParleyError("CORRUPT", `the permission policy of ${where} cannot be read`);
  return parsed.data;
}

/** The policy that applies in one project of a team. */
export async function read(db: Db, teamId: string, projectId: string): Promise<Policy> {
  const [team, project] = await Promise.all([
    db.team.findUnique({ where: { id: teamId }, select: { permission: true } }),
    db.project.findUnique({ where: { id: projectId }, select: { permission: true, teamId: true } }),
  ]);
  return {
    team: rulesOf(team?.permission, `team ${teamId}`),
    project: project?.teamId === teamId ? rulesOf(project.permission, `project ${projectId}`) : [],
  };
}

async function ownProject(ctx: Acting, projectId: string) {
  const row = await ctx.db.project.findUnique({ where: { id: projectId }, select: { id: true, teamId: true, permission: true } });
  if (!row || row.teamId !== ctx.actor.teamId) throw ParleyError.notFound("project", projectId);
  return row;
}

/** The rules of the team (no project) or of one of its projects; every member may read them. */
export async function get(ctx: Acting, input: PolicyScope): Promise<{ rules: Ruleset }> {
  const scope = PolicyScope.parse(input);
  if (scope.projectId) return { rules: rulesOf((await ownProject(ctx, scope.projectId)).permission, `project ${scope.projectId}`) };
  const team = await ctx.db.team.findUnique({ where: { id: ctx.actor.teamId }, select: { permission: true } });
  return { rules: rulesOf(team?.permission, `team ${ctx.actor.teamId}`) };
}

/** Replace the rules of the team or of one project (owners and admins only). */
export async function set(ctx: Acting, input: SetPolicyInput): Promise<{ rules: Ruleset }> {
  const { projectId, rules } = parse(SetPolicyInput, input);
  await requireRole(ctx, ADMIN_ROLES, "change the permission policy");
  const value = rules.length > 0 ? rules : undefined;
  if (projectId) {
    await ownProject(ctx, projectId);
    await ctx.db.project.update({ where: { id: projectId }, data: { permission: value ?? Prisma.DbNull } });
  } else {
    await ctx.db.team.update({ where: { id: ctx.actor.teamId }, data: { permission: value ?? Prisma.DbNull } });
  }
  return { rules };
}

/** Members may give a session rules that ask or deny; allowing beyond the policy is for owners and admins. */
export async function checkSessionRules(ctx: Acting, rules: Ruleset | null | undefined): Promise<void> {
  if (!rules?.some((rule) => rule.action === "allow")) return;
  await requireRole(ctx, ADMIN_ROLES, 'add "allow" rules to a session (members may add "ask" and "deny" rules)');
}
