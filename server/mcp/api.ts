import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { ParleyError } from "../errors";
import { parse } from "../fn";
import type { Context } from "../services";
import { auth } from "@ai-sdk/mcp";
import type { ServerState } from "./hub";
import { StoredOAuth, callbackUrl } from "./oauth";
import { type Listed, Scope, type Spec, listed } from "./servers";
import { logger } from "../log";

const log = logger("mcp");

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
  return Promise.all(all.map(async (spec) => ({ ...listed(spec), ...(await ctx.mcp.state(ctx.actor.teamId, spec, projectId, ctx.actor.userId)) })));
}

export interface Budget {
  /** The team's default model ("provider/model") and its context (tokens); absent when it cannot be resolved. */
  model?: string;
  contextTokens?: number;
  /** Roughly the tokens the enabled servers' tools (as last listed) take in a request, and how many tools. */
  tokens: number;
  tools: number;
  warning?: string;
}

/**
 * What the enabled servers' tools would take of the context of the team's default model
 * (any member): the Team page warns beside the server list when it is a large share.
 */
export async function budget(ctx: Context, input: z.input<typeof Scope>): Promise<Budget> {
  const { projectId } = parse(Scope, input);
  await requireRole(ctx, [...ADMIN_ROLES, "member"], "see the team's tool servers");
  await scopeOf(ctx, projectId);
  const models = ctx.models.forTeam ? await ctx.models.forTeam(ctx, ctx.actor.teamId) : ctx.models;
  const ref = models.default();
  let contextTokens: number | undefined;
  try {
    contextTokens = models.resolve(ref).limit.context;
  } catch (error) {
    // A default the team cannot use now (no key): the tools are counted, without a share.
    log.info(`the default model of team ${ctx.actor.teamId} cannot be resolved for the tool servers' budget: ${error instanceof Error ? error.message : String(error)}`);
  }
  const counted = await ctx.mcp.budget(ctx.actor.teamId, projectId, contextTokens ?? 0);
  return { model: `${ref.providerId}/${ref.modelId}`, ...(contextTokens ? { contextTokens } : {}), ...counted };
}

export const RefreshInput = Scope.extend({ name: z.string().min(1).max(64) });

/** Connects to a server again and reads its tools now (owners and admins): its status says how it went. */
export async function refresh(ctx: Context, input: z.input<typeof RefreshInput>): Promise<ServerView> {
  const { projectId, name } = parse(RefreshInput, input);
  await requireRole(ctx, ADMIN_ROLES, "reconnect tool servers");
  const spec = (await scopeOf(ctx, projectId)).find((s) => s.name === name);
  if (!spec) throw ParleyError.notFound("Tool server", name);
  try {
    await ctx.mcp.refresh(ctx.actor.teamId, spec, projectId, ctx.actor.userId);
  } catch (error) {
    // The status carries the reason (redacted); the page shows it.
    log.warn(`tool server ${name} of team ${ctx.actor.teamId} could not be listed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { ...listed(spec), ...(await ctx.mcp.state(ctx.actor.teamId, spec, projectId, ctx.actor.userId)) };
}

export const ConnectInput = RefreshInput.extend({ origin: z.url({ protocol: /^https?$/ }).max(2048) });

/**
 * Starts connecting an OAuth server (owners and admins): the answer is where to send the
 * browser (the authorization server's page), or `connected` when stored tokens still work
 * (refreshed if need be). The callback (app/api/mcp/oauth/callback) finishes the flow.
 */
export async function connect(ctx: Context, input: z.input<typeof ConnectInput>): Promise<{ authorizationUrl: string } | { connected: true }> {
  const { projectId, name, origin } = parse(ConnectInput, input);
  const spec = (await scopeOf(ctx, projectId)).find((s) => s.name === name);
  if (!spec) throw ParleyError.notFound("Tool server", name);
  if (!spec.oauth) throw ParleyError.invalid(`${name} does not use OAuth.`);
  // A team's connection is for owners and admins; with one per member, each member connects their own account.
  if (spec.oauthPerMember) await requireRole(ctx, [...ADMIN_ROLES, "member"], "connect tool servers");
  else await requireRole(ctx, ADMIN_ROLES, "connect tool servers");
  // The browser comes back to this site: its public URL when the operator set one, else the page's own origin (the call passed the same-origin check).
  const redirectUrl = callbackUrl(ctx.settings.publicUrl ?? origin, ctx.actor.teamId, spec, projectId);
  const provider = await StoredOAuth.load(ctx, ctx.actor.teamId, spec, { userId: ctx.actor.userId, redirectUrl });
  const result = await auth(provider, { serverUrl: spec.url, fetchFn: ctx.mcp.oauthFetch() });
  if (result === "AUTHORIZED") {
    await ctx.mcp.reset(ctx.actor.teamId, spec, projectId, ctx.actor.userId);
    return { connected: true };
  }
  if (!provider.authorizationUrl) throw new ParleyError("INTERNAL", `The authorization server of ${name} gave no page to connect at.`);
  return { authorizationUrl: provider.authorizationUrl.toString() };
}

/** The end of a flow: the authorization server sent the browser back with a code (owners and admins of the team). */
export async function finish(ctx: Context, query: URLSearchParams): Promise<{ name: string }> {
  const teamId = query.get("team");
  const key = query.get("server");
  const code = query.get("code");
  const state = query.get("state");
  const projectId = query.get("project") ?? undefined;
  if (!teamId || !key || !code || !state) throw ParleyError.invalid(query.get("error_description") ?? query.get("error") ?? "The authorization server sent no code.");
  if (teamId !== ctx.actor.teamId) throw new ParleyError("FORBIDDEN", "This authorization is for another team: switch to it and connect again.");
  const spec = (await scopeOf(ctx, projectId)).find((s) => s.key === key);
  if (!spec?.oauth) throw ParleyError.notFound("Tool server", key);
  if (spec.oauthPerMember) await requireRole(ctx, [...ADMIN_ROLES, "member"], "connect tool servers");
  else await requireRole(ctx, ADMIN_ROLES, "connect tool servers");
  const provider = await StoredOAuth.load(ctx, teamId, spec, { userId: ctx.actor.userId });
  if (!provider.matches(state)) throw ParleyError.invalid("This authorization does not match the one under way: connect again.");
  await auth(provider, { serverUrl: spec.url, authorizationCode: code, callbackState: state, fetchFn: ctx.mcp.oauthFetch() });
  await ctx.mcp.reset(teamId, spec, projectId, ctx.actor.userId);
  try {
    await ctx.mcp.refresh(teamId, spec, projectId, ctx.actor.userId);
  } catch (error) {
    // Connected; its tools are read at the next use (the status says why not now).
    log.warn(`tool server ${spec.name} of team ${teamId} was connected but could not be listed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { name: spec.name };
}
