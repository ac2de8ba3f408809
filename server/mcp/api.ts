import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { ParleyError } from "../errors";
import { parse } from "../fn";
import type { Context } from "../services";
import type { ServerState } from "./hub";
import { type Listed, Scope, type Spec, listed } from "./servers";

/**
 * What the Team page reads and does with tool servers: every member sees the servers of
 * the team (and of a project), their status on this instance and their tools; owners and
 * admins connect one again and read its tools now.
 */

export type ServerView = Listed & ServerState;

async function scopeOf(ctx: Context, projectId: string | undefined): Promise<Spec[]> {
  if (projectId) {
    const row = await ctx.db.project.findUnique({ where: { id: projectId }, select: { teamId: true } });
    if (!row || row.teamId !== ctx.actor.teamId) throw ParleyError.notFound("project", projectId);
  }
  return ctx.mcp.specs(ctx.actor.teamId, projectId);
}

/** The servers of the team (and of one project), for any member: never a header's value. */
export async function list(ctx: Context, input: z.input<typeof Scope>): Promise<ServerView[]> {
  const { projectId } = parse(Scope, input);
  await requireRole(ctx, [...ADMIN_ROLES, "member"], "see the team's tool servers");
  const all = await scopeOf(ctx, projectId);
  return Promise.all(all.map(async (spec) => ({ ...listed(spec), ...(await ctx.mcp.state(ctx.actor.teamId, spec, projectId)) })));
}

export const RefreshInput = Scope.extend({ name: z.string().min(1).max(64) });

/** Connects to a server again and reads its tools now (owners and admins): its status says how it went. */
export async function refresh(ctx: Context, input: z.input<typeof RefreshInput>): Promise<ServerView> {
  const { projectId, name } = parse(RefreshInput, input);
  await requireRole(ctx, ADMIN_ROLES, "reconnect tool servers");
  const spec = (await scopeOf(ctx, projectId)).find((s) => s.name === name);
  if (!spec) throw ParleyError.notFound("Tool server", name);
  try {
    await ctx.mcp.refresh(ctx.actor.teamId, spec, projectId);
  } catch (error) {
    // The status carries the reason (redacted); the page shows it.
    console.warn(`[mcp] tool server ${name} of team ${ctx.actor.teamId} could not be listed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { ...listed(spec), ...(await ctx.mcp.state(ctx.actor.teamId, spec, projectId)) };
}
