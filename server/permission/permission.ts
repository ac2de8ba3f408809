import { type Agent, Agents } from "../agent/agent";
import { ADMIN_ROLES } from "../auth/roles";
import type { Bus, Envelope } from "../bus/bus";
import { type Db, Prisma } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import type { Actor } from "../actor";
import type { PermissionRequest, Verdict } from "../tool/tool";
import { DEFAULTS } from "./evaluate";
import { Asked, Replied, type Reply, Request } from "./events";
import { DECISION_BUDGET, type Layer, MatchBudgetError, type RuleStack, type StoredApprovals, decide, describeDenial, isPolicyQuestion, layers } from "./layers";
import * as Policy from "./policy";
import { type Ruleset, Ruleset as RulesetSchema } from "./schema";
import { logger } from "../log";

const log = logger("permission");

/**
 * The ask flow. `ask` decides from the rules (the layers of layers.ts, with the stored
 * approvals); when they say "ask" it stores a pending request, publishes
 * `permission.asked` and waits for `permission.replied` (answered from any tab, any
 * member, any instance). "always" is stored in the database for the project and agent —
 * for the whole team, with who granted it — so it outlives restarts. A question the
 * server config or the team's or project's policy asks (`policy` on the request) may be
 * answered "always" by owners and admins only: their approval then bypasses that question
 * for the whole team (layers.ts); members answer it once or reject it.
 */

/** The user refused: the call fails and the loop stops. */
export class RejectedError extends Error {
  override name = "PermissionRejectedError";
  constructor() {
    super("The user rejected permission to use this tool call. Stop and wait for the user's next instruction.");
  }
}

/** The user refused with feedback: the model gets the feedback and may try another way. */
export class CorrectedError extends Error {
  override name = "PermissionCorrectedError";
  constructor(readonly feedback: string) {
    super(`The user rejected permission to use this tool call with this feedback: ${feedback}`);
  }
}

/** A rule forbids the call. */
export class DeniedError extends Error {
  override name = "PermissionDeniedError";
}

export function isRejection(error: unknown): boolean {
  return error instanceof RejectedError;
}

export interface AskInput {
  teamId: string;
  projectId: string;
  sessionId: string;
  agent: string;
  /** The rules of the request, except the stored approvals (read at every decision). */
  stack: RuleStack;
  request: PermissionRequest;
  tool?: { messageId: string; callId: string };
  signal: AbortSignal;
  /** Told when the request is put to a person (not when the rules answer it). */
  onAsked?: (request: Request) => void;
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

interface StoredApproval {
  permission: string;
  pattern: string;
  /** Its grantor is an owner or admin of the team now (a demoted grantor's approvals no longer bypass the policy). */
  admin: boolean;
}

/** Stored "always" approvals as the allow rules they are, members' and admins' apart. */
function allowRules(approvals: StoredApproval[]): StoredApprovals {
  const rules = (admin: boolean) => approvals.filter((a) => a.admin === admin).map((a) => ({ permission: a.permission, pattern: a.pattern, action: "allow" as const }));
  return { members: rules(false), admins: rules(true) };
}

/** The SQL condition "the approval `a` was granted by a current owner or admin of its team". */
const ADMIN_GRANTED = Prisma.sql`EXISTS (SELECT 1 FROM "Membership" m WHERE m."teamId" = a."teamId" AND m."userId" = a."grantedById" AND m.role::text IN (${Prisma.join([...ADMIN_ROLES])}))`;

/**
 * The agent whose rules a stack holds: by name (one of the server's), or the agent itself
 * (a session's, which may come from its repository's files: server/agent/project.ts).
 */
export type AgentRef = string | Pick<Agent, "name" | "permission">;
const nameOf = (agent: AgentRef): string => (typeof agent === "string" ? agent : agent.name);

export class Permissions {
  private readonly waiters = new Map<string, Waiter>();
  private readonly configRules: Ruleset;
  private readonly agents: Agents;

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    options: { configRules?: Ruleset; agents?: Agents } = {},
  ) {
    this.configRules = options.configRules ?? [];
    this.agents = options.agents ?? new Agents();
    bus.subscribeAll((event) => this.onEvent(event));
  }

  /** The rules of a session of a project, as its tools are checked: defaults, config, policy, agent, session. */
  async stack(teamId: string, projectId: string, agent: AgentRef, session: Ruleset | undefined): Promise<RuleStack> {
    return this.stackOf(await Policy.read(this.db, teamId, projectId), agent, session);
  }

  private stackOf(policy: Policy.Policy, agent: AgentRef, session: Ruleset | undefined): RuleStack {
    const rules = typeof agent === "string" ? this.agents.get(agent).permission : agent.permission;
    return { defaults: DEFAULTS, config: this.configRules, team: policy.team, project: policy.project, agent: rules, session };
  }

  /**
   * What one step of a turn works under, in one statement (every step of every turn reads
   * it): the stack, its layers with the stored approvals, and the folders of every other
   * project (the boundary of file tools).
   */
  async scope(
    teamId: string,
    projectId: string,
    agent: AgentRef,
    session: Ruleset | undefined,
  ): Promise<{ stack: RuleStack; layers: Layer[]; projects: Array<{ teamId: string; directory: string }> }> {
    const [row] = await this.db.$queryRaw<Array<{ team: unknown; project: unknown; approvals: StoredApproval[]; projects: Array<{ teamId: string; directory: string }> }>>`
      SELECT (SELECT t.permission FROM "Team" t WHERE t.id = ${teamId}) AS team,
             (SELECT p.permission FROM "Project" p WHERE p.id = ${projectId} AND p."teamId" = ${teamId}) AS project,
             (SELECT coalesce(json_agg(json_build_object('permission', a.permission, 'pattern', a.pattern, 'admin', ${ADMIN_GRANTED}) ORDER BY a."createdAt"), '[]'::json)
                FROM "PermissionApproval" a WHERE a."projectId" = ${projectId} AND a.agent = ${nameOf(agent)}) AS approvals,
             (SELECT coalesce(json_agg(json_build_object('teamId', o."teamId", 'directory', o.directory)), '[]'::json)
                FROM "Project" o WHERE o.id <> ${projectId}) AS projects`;
    const policy = { team: Policy.rulesOf(row?.team, `team ${teamId}`), project: Policy.rulesOf(row?.project, `project ${projectId}`) };
    const stack = this.stackOf(policy, agent, session);
    const approvals = allowRules(row?.approvals ?? []);
    return { stack, layers: layers(stack, approvals), projects: row?.projects ?? [] };
  }

  /** Every layer, stored approvals included, for decisions made without asking (tool visibility, `ctx.check`). */
  async layersOf(stack: RuleStack, projectId: string, agent: string): Promise<Layer[]> {
    return layers(stack, await this.approvals(projectId, agent));
  }

  /** Allow rules the team stored with "always" for this project and agent (members' and owners' or admins' apart). */
  async approvals(projectId: string, agent: string): Promise<StoredApprovals> {
    const rows = await this.db.$queryRaw<StoredApproval[]>`
      SELECT a.permission, a.pattern, ${ADMIN_GRANTED} AS admin
      FROM "PermissionApproval" a WHERE a."projectId" = ${projectId} AND a.agent = ${agent}
      ORDER BY a."createdAt"`;
    return allowRules(rows);
  }

  /**
   * What the rules (with the stored approvals) say about a request: "allow" when every
   * pattern is allowed, "ask" when one needs an answer. A denied pattern throws.
   */
  private async decide(input: AskInput): Promise<{ action: "allow" | "ask"; policy: boolean }> {
    const stack = await this.layersOf(input.stack, input.projectId, input.agent);
    const verdict = verdictOf(input.request, stack);
    if (verdict.action === "deny") throw new DeniedError(verdict.message);
    return { action: verdict.action, policy: verdict.policy };
  }

  async ask(input: AskInput): Promise<void> {
    const decided = await this.decide(input);
    if (decided.action === "allow") return;
    if (input.signal.aborted) throw new DOMException("aborted", "AbortError");

    const request: Request = {
      id: Id.ascending("permission"),
      sessionId: input.sessionId,
      permission: input.request.permission,
      patterns: input.request.patterns,
      always: input.request.always ?? input.request.patterns,
      ...(input.request.mustAsk ? { mustAsk: true } : {}),
      ...(decided.policy ? { policy: true } : {}),
      metadata: input.request.metadata ?? {},
      ...(input.tool ? { tool: input.tool } : {}),
      time: { created: Date.now() },
    };
    const answered = new Promise<void>((resolve, reject) => this.waiters.set(request.id, { resolve, reject }));
    try {
      await this.db.permissionRequest.create({
        data: {
          id: request.id,
          teamId: input.teamId,
          sessionId: input.sessionId,
          projectId: input.projectId,
          agent: input.agent,
          permission: request.permission,
          patterns: request.patterns,
          always: request.always,
          metadata: request.metadata as object,
          tool: request.tool ?? undefined,
          mustAsk: input.request.mustAsk === true,
          createdAt: new Date(request.time.created),
        },
      });
    } catch (error) {
      this.waiters.delete(request.id);
      throw error;
    }
    this.bus.publish(Asked, { request }, { teamId: input.teamId, sessionId: input.sessionId });
    input.onAsked?.(request);
    const onAbort = () => {
      void this.settle(input.teamId, request.id, "reject", "aborted").catch((error: unknown) => {
        log.error("could not close an aborted request", error);
      });
      this.waiters.get(request.id)?.reject(new DOMException("aborted", "AbortError"));
      this.waiters.delete(request.id);
    };
    input.signal.addEventListener("abort", onAbort, { once: true });
    // An abort while the request was being stored fired no event for the listener above.
    if (input.signal.aborted) onAbort();
    // An "always" answered while the request was being stored did not see it among the
    // pending ones: if its approval covers this request now, the request is resolved too.
    // (Not awaited: the answer may come first, and `answered` must have its handler now.)
    else void this.resolveIfApproved(input, request.id);
    try {
      await answered;
    } finally {
      input.signal.removeEventListener("abort", onAbort);
      this.waiters.delete(request.id);
    }
  }

  private async resolveIfApproved(input: AskInput, requestId: string): Promise<void> {
    try {
      if ((await this.decide(input)).action === "allow") await this.settle(input.teamId, requestId, "always");
    } catch (error) {
      // The request stays pending and can still be answered.
      log.error("could not check a new request against the stored approvals", error);
    }
  }

  private onEvent(event: Envelope): void {
    if (event.name !== Replied.name) return;
    const { requestId, reply } = Replied.schema.parse(event.payload);
    const waiter = this.waiters.get(requestId);
    if (!waiter) return;
    this.waiters.delete(requestId);
    if (reply !== "reject") {
      waiter.resolve();
      return;
    }
    void this.db.permissionRequest
      .findUnique({ where: { id: requestId }, select: { feedback: true } })
      .then((row) => waiter.reject(row?.feedback ? new CorrectedError(row.feedback) : new RejectedError()))
      .catch((error: unknown) => waiter.reject(error instanceof Error ? error : new RejectedError()));
  }

  /** Mark a pending request answered and tell everyone; false when it was not pending. */
  private async settle(teamId: string, requestId: string, reply: Reply, feedback?: string): Promise<boolean> {
    const updated = await this.db.permissionRequest.updateMany({
      where: { id: requestId, status: "pending" },
      data: { status: reply, repliedAt: new Date(), ...(feedback ? { feedback } : {}) },
    });
    if (updated.count === 0) return false;
    const row = await this.db.permissionRequest.findUniqueOrThrow({ where: { id: requestId }, select: { sessionId: true } });
    this.bus.publish(Replied, { sessionId: row.sessionId, requestId, reply }, { teamId, sessionId: row.sessionId });
    return true;
  }

  /** Answer a pending request. */
  async reply(actor: Actor, input: { requestId: string; reply: Reply; feedback?: string }): Promise<void> {
    Id.assert("permission", input.requestId);
    const row = await this.db.permissionRequest.findUnique({ where: { id: input.requestId } });
    if (!row || row.teamId !== actor.teamId) throw ParleyError.notFound("permission request", input.requestId);
    if (row.status !== "pending") throw new ParleyError("CONFLICT", `permission request ${row.id} was already answered (${row.status})`);
    const feedback = input.feedback?.trim() || undefined;

    if (input.reply === "reject") {
      await this.settle(row.teamId, row.id, "reject", feedback);
      const others = await this.db.permissionRequest.findMany({ where: { sessionId: row.sessionId, status: "pending" }, select: { id: true } });
      for (const other of others) await this.settle(row.teamId, other.id, "reject");
      return;
    }
    if (input.reply === "always") {
      const patterns = strings(row.always);
      if (patterns.length === 0) throw ParleyError.invalid("this request cannot be allowed always: allow it once, or reject it");
      // A question of the server config or of the team's or project's policy (as the rules
      // read now) is final for members: only owners and admins may store an approval past it.
      const policy = (await this.verdictOfRow(row)).policy;
      if (policy && !(await this.isAdmin(actor))) {
        throw new ParleyError("FORBIDDEN", "The team's permission policy asks this every time: only team owners and admins can always allow it. Allow it once, or reject it.");
      }
      await this.db.permissionApproval.createMany({
        data: patterns.map((pattern) => ({
          id: Id.ascending("approval"),
          teamId: row.teamId,
          projectId: row.projectId,
          agent: row.agent,
          permission: row.permission,
          pattern,
          grantedById: actor.userId,
        })),
        skipDuplicates: true,
      });
      // An owner's or admin's "always" to a policy question makes the approval theirs when a
      // member stored the same one before (it then answers the question; the Approvals page says who).
      if (policy) {
        await this.db.permissionApproval.updateMany({
          where: { projectId: row.projectId, agent: row.agent, permission: row.permission, pattern: { in: patterns } },
          data: { grantedById: actor.userId },
        });
      }
      await this.settle(row.teamId, row.id, "always");
      // Other pending requests that every rule — the new approvals included — now allows
      // are answered too (a session's own rules may still say "ask" or "deny" for them).
      const others = await this.db.permissionRequest.findMany({
        where: { projectId: row.projectId, agent: row.agent, status: "pending" },
        include: { session: { select: { permission: true } } },
      });
      for (const other of others) {
        if ((await this.verdictOfRow(other, other.session.permission)).action === "allow") await this.settle(other.teamId, other.id, "always");
      }
      return;
    }
    await this.settle(row.teamId, row.id, "once");
  }

  /** Whether the actor is an owner or admin of their team (read now: a demotion counts at once): who may always allow a policy question. */
  async isAdmin(actor: Actor): Promise<boolean> {
    const membership = await this.db.membership.findUnique({ where: { teamId_userId: { teamId: actor.teamId, userId: actor.userId } }, select: { role: true } });
    return membership !== null && ADMIN_ROLES.includes(membership.role);
  }

  /** What the rules say now about a stored request (its session's rules read again unless given). */
  private async verdictOfRow(
    row: { teamId: string; projectId: string; sessionId: string; agent: string; permission: string; patterns: unknown; mustAsk: boolean },
    sessionPermission?: unknown,
  ): Promise<RequestVerdict> {
    const rules = sessionPermission ?? (await this.db.session.findUnique({ where: { id: row.sessionId }, select: { permission: true } }))?.permission;
    const stack = await this.layersOf(await this.stack(row.teamId, row.projectId, row.agent, RulesetSchema.safeParse(rules).data), row.projectId, row.agent);
    return verdictOf({ permission: row.permission, patterns: strings(row.patterns), mustAsk: row.mustAsk }, stack);
  }

  /** Pending requests of a session, oldest first (they survive reloads). */
  async pending(actor: Actor, sessionId: string): Promise<Request[]> {
    // Another team's session is not found, like every session read (server/session/access.ts).
    const session = await this.db.session.findUnique({ where: { id: sessionId }, select: { teamId: true, permission: true } });
    if (!session || session.teamId !== actor.teamId) throw ParleyError.notFound("session", sessionId);
    const rows = await this.db.permissionRequest.findMany({
      where: { sessionId, teamId: actor.teamId, status: "pending" },
      orderBy: { id: "asc" },
    });
    const requests: Request[] = [];
    for (const row of rows) {
      // Whether the policy asks it, as the rules read now (they may have changed since it was asked).
      const policy = strings(row.always).length > 0 && (await this.verdictOfRow(row, session.permission)).policy;
      requests.push(
        Request.parse({
          id: row.id,
          sessionId: row.sessionId,
          permission: row.permission,
          patterns: row.patterns,
          always: row.always,
          ...(row.mustAsk ? { mustAsk: true } : {}),
          ...(policy ? { policy: true } : {}),
          metadata: row.metadata,
          ...(row.tool ? { tool: row.tool } : {}),
          time: { created: row.createdAt.getTime() },
        }),
      );
    }
    return requests;
  }

  /** Fail every pending request of the given sessions (crash recovery). */
  async failPending(sessionIds: string[]): Promise<number> {
    const rows = await this.db.permissionRequest.findMany({ where: { sessionId: { in: sessionIds }, status: "pending" } });
    for (const row of rows) await this.settle(row.teamId, row.id, "reject", "The server restarted while this request was pending.");
    return rows.length;
  }
}

/** What the rules say about a whole request; `policy`: one of its questions is the server config's or the team's or project's policy's. */
export interface RequestVerdict {
  action: Verdict;
  message: string;
  policy: boolean;
}

/**
 * What the layers say about a whole request: deny when one pattern is denied (naming the
 * rule), ask when one needs an answer, else allow.
 */
export function verdictOf(request: Pick<PermissionRequest, "permission" | "patterns" | "mustAsk">, stack: Layer[]): RequestVerdict {
  let action: Verdict = "allow";
  let policy = false;
  // Rules and requests are bounded, but hundreds of long rules against a long command
  // could still cost seconds: past the budget the request is refused, never left to hang.
  const budget = { remaining: DECISION_BUDGET };
  for (const pattern of request.patterns) {
    let decision;
    try {
      decision = decide(request.permission, pattern, stack, { mustAsk: request.mustAsk === true, budget });
    } catch (error) {
      if (!(error instanceof MatchBudgetError)) throw error;
      return { action: "deny", message: `Permission denied: the permission rules are too complex to check this ${request.permission} request; shorten it or simplify the rules.`, policy: false };
    }
    if (decision.action === "deny") return { action: "deny", message: describeDenial(request.permission, pattern, decision), policy: false };
    if (decision.action === "ask") action = "ask";
    if (isPolicyQuestion(decision)) policy = true;
  }
  // A request with nothing to match (no pattern) is never allowed silently.
  if (request.patterns.length === 0 && action === "allow") action = "ask";
  return { action, message: "", policy };
}
