import Decimal from "decimal.js";
import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { ParleyError } from "../errors";
import type { Acting } from "../actor";
import type { Clock } from "../clock";
import type { Db } from "../db/client";
import type { Keyring } from "../secrets/seal";

/**
 * Spending (SPEC §12): every finished model step with a cost adds a row to `Spend` (the
 * session's team, author and project); a month's spending is their sum since the first of
 * the month (UTC). A team's owners and admins set a monthly limit for the team and one for
 * each member (TeamModelSettings). At 80 % the figures carry a notice; at 100 % a new
 * prompt is refused with an error naming the limit, while a running turn finishes its
 * step. The database is the only state, so every instance applies the same limits.
 */

/** Share of a limit at which the notice shows. */
export const NOTICE_AT = 0.8;

/** The first moment of `now`'s month, UTC. */
export function monthStart(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

function monthName(now: number): string {
  return new Date(now).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" });
}

/** US dollars for a message: at least two decimals, up to four when small. */
export function usd(value: number): string {
  return `$${value < 1 ? Number(value.toFixed(4)).toString() : value.toFixed(2)}`;
}

/** Adds one step's cost (nothing for a free step). */
export async function record(s: { db: Db; clock: Clock }, session: { id: string; teamId: string; authorId: string; projectId: string }, cost: number): Promise<void> {
  if (!(cost > 0)) return;
  await s.db.spend.create({
    data: { teamId: session.teamId, userId: session.authorId, projectId: session.projectId, sessionId: session.id, cost: new Decimal(cost).toString(), at: new Date(s.clock.now()) },
  });
}

export interface Limits {
  /** USD per month; null: none. */
  team: number | null;
  member: number | null;
}

/** Where a team's limits may be kept: its models (server/provider/team.ts reads them with its model settings). */
interface LimitsKept {
  keyring?: Keyring;
  models?: {
    forTeam?(s: { db: Db; keyring: Keyring }, teamId: string): Promise<{ details?: { limits?: Limits } }>;
    forgetTeam?(teamId: string): void;
  };
}

/**
 * A team's limits: as its models keep them (read with its model settings, forgotten on every
 * instance when they change — setLimits forgets them), else from the database.
 */
export async function limits(s: { db: Db } & LimitsKept, teamId: string): Promise<Limits> {
  if (s.keyring && s.models?.forTeam) {
    // Models that cannot be read (a key no keyring opens) say nothing of limits: the row does.
    const kept = await s.models.forTeam({ db: s.db, keyring: s.keyring }, teamId).then(
      (models) => models.details?.limits,
      () => undefined,
    );
    if (kept) return kept;
  }
  const row = await s.db.teamModelSettings.findUnique({ where: { teamId }, select: { monthlyLimit: true, memberLimit: true } });
  return { team: row?.monthlyLimit ? row.monthlyLimit.toNumber() : null, member: row?.memberLimit ? row.memberLimit.toNumber() : null };
}

/** The month's spending of a team, and of one member of it. */
async function spent(s: { db: Db; clock: Clock }, teamId: string, userId: string): Promise<{ team: number; member: number }> {
  const since = monthStart(s.clock.now());
  const [team, member] = await Promise.all([
    s.db.spend.aggregate({ where: { teamId, at: { gte: since } }, _sum: { cost: true } }),
    s.db.spend.aggregate({ where: { teamId, userId, at: { gte: since } }, _sum: { cost: true } }),
  ]);
  return { team: team._sum.cost?.toNumber() ?? 0, member: member._sum.cost?.toNumber() ?? 0 };
}

/**
 * Refuses a new prompt once the team's monthly limit, or that of the member whose session
 * it is (its spending is counted to the session's author), is reached.
 */
export async function assertWithin(s: { db: Db; clock: Clock } & LimitsKept, teamId: string, userId: string): Promise<void> {
  const limit = await limits(s, teamId);
  if (limit.team === null && limit.member === null) return;
  const used = await spent(s, teamId, userId);
  const month = monthName(s.clock.now());
  if (limit.team !== null && used.team >= limit.team) {
    throw new ParleyError(
      "FORBIDDEN",
      `The team's monthly spending limit of ${usd(limit.team)} is reached (${usd(used.team)} spent in ${month}): new prompts are refused until next month or until an owner or admin raises the limit.`,
      { details: { limit: "team", limitUsd: limit.team, spentUsd: used.team } },
    );
  }
  if (limit.member !== null && used.member >= limit.member) {
    throw new ParleyError(
      "FORBIDDEN",
      `The monthly spending limit per member of ${usd(limit.member)} is reached for this session's author (${usd(used.member)} spent in ${month}): new prompts are refused until next month or until an owner or admin raises the limit.`,
      { details: { limit: "member", limitUsd: limit.member, spentUsd: used.member } },
    );
  }
}

export interface Summary {
  /** The month's first day (ms since the epoch) and its name. */
  month: { start: number; name: string };
  team: number;
  limits: Limits;
  /** A notice at 80 % of a limit (the team's or the asking member's), and at 100 %. */
  notice: string | null;
  members: { userId: string; name: string; cost: number }[];
  projects: { projectId: string; name: string; cost: number }[];
}

/** The month's spending of the actor's team, per member and per project (any member). */
export async function summary(ctx: Acting & { clock: Clock }): Promise<Summary> {
  await requireRole(ctx, [...ADMIN_ROLES, "member"], "see the team's spending");
  const { teamId, userId } = ctx.actor;
  const since = monthStart(ctx.clock.now());
  const where = { teamId, at: { gte: since } };
  const [byMember, byProject, limit] = await Promise.all([
    ctx.db.spend.groupBy({ by: ["userId"], where, _sum: { cost: true } }),
    ctx.db.spend.groupBy({ by: ["projectId"], where, _sum: { cost: true } }),
    limits(ctx, teamId),
  ]);
  const [users, projects] = await Promise.all([
    ctx.db.user.findMany({ where: { id: { in: byMember.map((r) => r.userId) } }, select: { id: true, name: true } }),
    ctx.db.project.findMany({ where: { teamId, id: { in: byProject.map((r) => r.projectId) } }, select: { id: true, name: true } }),
  ]);
  const sum = (value: Decimal | null) => value?.toNumber() ?? 0;
  const members = byMember.map((r) => ({ userId: r.userId, name: users.find((u) => u.id === r.userId)?.name ?? "(gone)", cost: sum(r._sum.cost) }));
  const team = byMember.reduce((total, r) => total.plus(r._sum.cost ?? 0), new Decimal(0)).toNumber();
  const mine = members.find((m) => m.userId === userId)?.cost ?? 0;
  return {
    month: { start: since.getTime(), name: monthName(ctx.clock.now()) },
    team,
    limits: limit,
    notice: notice(team, mine, limit),
    members: members.sort((a, b) => b.cost - a.cost),
    projects: byProject.map((r) => ({ projectId: r.projectId, name: projects.find((p) => p.id === r.projectId)?.name ?? "(removed)", cost: sum(r._sum.cost) })).sort((a, b) => b.cost - a.cost),
  };
}

/** Whole percent of `max` used (exact decimal: $0.009 of $0.01 is 90 %). */
function percent(used: number, max: number): number {
  return new Decimal(used).div(max).mul(100).floor().toNumber();
}

function notice(team: number, mine: number, limit: Limits): string | null {
  const over = (used: number, max: number | null) => max !== null && used >= max;
  const near = (used: number, max: number | null) => max !== null && new Decimal(used).gte(new Decimal(max).mul(NOTICE_AT));
  if (over(team, limit.team)) return `The team's monthly limit of ${usd(limit.team ?? 0)} is reached: new prompts are refused.`;
  if (over(mine, limit.member)) return `Your monthly limit of ${usd(limit.member ?? 0)} is reached: new prompts in your sessions are refused.`;
  if (near(team, limit.team)) return `The team has used ${percent(team, limit.team ?? 1)} % of its monthly limit of ${usd(limit.team ?? 0)}.`;
  if (near(mine, limit.member)) return `You have used ${percent(mine, limit.member ?? 1)} % of your monthly limit of ${usd(limit.member ?? 0)}.`;
  return null;
}

const Usd = z.number().nonnegative().max(1_000_000).nullable();
export const LimitsInput = z.object({ team: Usd, member: Usd });

/** Sets the team's monthly limits (owners and admins). */
export async function setLimits(ctx: Acting & { clock: Clock } & Pick<LimitsKept, "models">, input: z.infer<typeof LimitsInput>): Promise<Limits> {
  await requireRole(ctx, ADMIN_ROLES, "set spending limits");
  const { team, member } = LimitsInput.parse(input);
  const data = { monthlyLimit: team === null ? null : new Decimal(team).toString(), memberLimit: member === null ? null : new Decimal(member).toString(), updatedAt: new Date(ctx.clock.now()), updatedById: ctx.actor.userId };
  await ctx.db.teamModelSettings.upsert({ where: { teamId: ctx.actor.teamId }, create: { teamId: ctx.actor.teamId, ...data }, update: data });
  ctx.models?.forgetTeam?.(ctx.actor.teamId);
  return { team, member };
}
