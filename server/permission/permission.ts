import { Agents } from "../agent/agent";
import type { Bus, Envelope } from "../bus/bus";
import type { Db } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import type { Actor } from "../services";
import type { PermissionRequest, Verdict } from "../tool/tool";
import { DEFAULTS } from "./evaluate";
import { Asked, Replied, type Reply, Request } from "./events";
import { DECISION_BUDGET, type Layer, MatchBudgetError, type RuleStack, decide, describeDenial, layers } from "./layers";
import * as Policy from "./policy";
import { type Ruleset, Ruleset as RulesetSchema } from "./schema";

/**
 * The ask flow. `ask` decides from the rules (the layers of layers.ts, with the stored
 * approvals); when they say "ask" it stores a pending request, publishes
 * `permission.asked` and waits for `permission.replied` (answered from any tab, any
 * member, any instance). "always" is stored in the database for the project and agent —
 * for the whole team, with who granted it — so it outlives restarts.
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

/** Stored "always" approvals as the allow rules they are. */
function allowRules(approvals: Array<{ permission: string; pattern: string }>): Ruleset {
  return approvals.map((a) => ({ permission: a.permission, pattern: a.pattern, action: "allow" as const }));
}

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
  async stack(teamId: string, projectId: string, agent: string, session: Ruleset | undefined): Promise<RuleStack> {
    return this.stackOf(await Policy.read(this.db, teamId, projectId), agent, session);
  }

  private stackOf(policy: Policy.Policy, agent: string, session: Ruleset | undefined): RuleStack {
    return { defaults: DEFAULTS, config: this.configRules, team: policy.team, project: policy.project, agent: this.agents.get(agent).permission, session };
  }

  /**
   * What one step of a turn works under, in one statement (every step of every turn reads
   * it): the stack, its layers with the stored approvals, and the folders of every other
   * project (the boundary of file tools).
   */
  async scope(
    teamId: string,
    projectId: string,
    agent: string,
    session: Ruleset | undefined,
  ): Promise<{ stack: RuleStack; layers: Layer[]; projects: Array<{ teamId: string; directory: string }> }> {
    const [row] = await this.db.$queryRaw<Array<{ team: unknown; project: unknown; approvals: Array<{ permission: string; pattern: string }>; projects: Array<{ teamId: string; directory: string }> }>>`
      SELECT (SELECT t.permission FROM "Team" t WHERE t.id = ${teamId}) AS team,
             (SELECT p.permission FROM "Project" p WHERE p.id = ${projectId} AND p."teamId" = ${teamId}) AS project,
             (SELECT coalesce(json_agg(json_build_object('permission', a.permission, 'pattern', a.pattern) ORDER BY a."createdAt"), '[]'::json)
                FROM "PermissionApproval" a WHERE a."projectId" = ${projectId} AND a.agent = ${agent}) AS approvals,
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

  /** Allow rules the team stored with "always" for this project and agent. */
  async approvals(projectId: string, agent: string): Promise<Ruleset> {
    const rows = await this.db.permissionApproval.findMany({ where: { projectId, agent }, orderBy: { createdAt: "asc" } });
    return allowRules(rows);
  }

  /**
   * What the rules (with the stored approvals) say about a request: "allow" when every
   * pattern is allowed, "ask" when one needs an answer. A denied pattern throws.
   */
  private async decide(input: AskInput): Promise<"allow" | "ask"> {
    const stack = await this.layersOf(input.stack, input.projectId, input.agent);
    const verdict = verdictOf(input.request, stack);
    if (verdict.action === "deny") throw new DeniedError(verdict.message);
    return verdict.action;
  }

  async ask(input: AskInput): Promise<void> {
    if ((await this.decide(input)) === "allow") return;
    if (input.signal.aborted) throw new DOMException("aborted", "AbortError");

    const request: Request = {
      id: Id.ascending("permission"),
      sessionId: input.sessionId,
      permission: input.request.permission,
      patterns: input.request.patterns,
      always: input.request.always ?? input.request.patterns,
      ...(input.request.mustAsk ? { mustAsk: true } : {}),
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
        console.error("[permission] could not close an aborted request", error);
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
      if ((await this.decide(input)) === "allow") await this.settle(input.teamId, requestId, "always");
    } catch (error) {
      // The request stays pending and can still be answered.
      console.error("[permission] could not check a new request against the stored approvals", error);
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
      await this.settle(row.teamId, row.id, "always");
      // Other pending requests that every rule — the new approvals included — now allows
      // are answered too (a session's own rules may still say "ask" or "deny" for them).
      const others = await this.db.permissionRequest.findMany({
        where: { projectId: row.projectId, agent: row.agent, status: "pending" },
        include: { session: { select: { permission: true } } },
      });
      for (const other of others) {
        const sessionRules = RulesetSchema.safeParse(other.session.permission).data;
        const stack = await this.layersOf(await this.stack(other.teamId, other.projectId, other.agent, sessionRules), other.projectId, other.agent);
        const request = { permission: other.permission, patterns: strings(other.patterns), mustAsk: other.mustAsk };
        if (verdictOf(request, stack).action === "allow") await this.settle(other.teamId, other.id, "always");
      }
      return;
    }
    await this.settle(row.teamId, row.id, "once");
  }

  /** Pending requests of a session, oldest first (they survive reloads). */
  async pending(actor: Actor, sessionId: string): Promise<Request[]> {
    // Another team's session is not found, like every session read (server/session/access.ts).
    const session = await this.db.session.findUnique({ where: { id: sessionId }, select: { teamId: true } });
    if (!session || session.teamId !== actor.teamId) throw ParleyError.notFound("session", sessionId);
    const rows = await this.db.permissionRequest.findMany({
      where: { sessionId, teamId: actor.teamId, status: "pending" },
      orderBy: { id: "asc" },
    });
    return rows.map((row) =>
      Request.parse({
        id: row.id,
        sessionId: row.sessionId,
        permission: row.permission,
        patterns: row.patterns,
        always: row.always,
        ...(row.mustAsk ? { mustAsk: true } : {}),
        metadata: row.metadata,
        ...(row.tool ? { tool: row.tool } : {}),
        time: { created: row.createdAt.getTime() },
      }),
    );
  }

  /** Fail every pending request of the given sessions (crash recovery). */
  async failPending(sessionIds: string[]): Promise<number> {
    const rows = await this.db.permissionRequest.findMany({ where: { sessionId: { in: sessionIds }, status: "pending" } });
    for (const row of rows) await this.settle(row.teamId, row.id, "reject", "The server restarted while this request was pending.");
    return rows.length;
  }
}

/**
 * What the layers say about a whole request: deny when one pattern is denied (naming the
 * rule), ask when one needs an answer, else allow.
 */
export function verdictOf(request: Pick<PermissionRequest, "permission" | "patterns" | "mustAsk">, stack: Layer[]): { action: Verdict; message: string } {
  let action: Verdict = "allow";
  // Rules and requests are bounded, but hundreds of long rules against a long command
  // could still cost seconds: past the budget the request is refused, never left to hang.
  const budget = { remaining: DECISION_BUDGET };
  for (const pattern of request.patterns) {
    let decision;
    try {
      decision = decide(request.permission, pattern, stack, { mustAsk: request.mustAsk === true, budget });
    } catch (error) {
      if (!(error instanceof MatchBudgetError)) throw error;
      return { action: "deny", message: `Permission denied: the permission rules are too complex to check this ${request.permission} request; shorten it or simplify the rules.` };
    }
    if (decision.action === "deny") return { action: "deny", message: describeDenial(request.permission, pattern, decision) };
    if (decision.action === "ask") action = "ask";
  }
  // A request with nothing to match (no pattern) is never allowed silently.
  if (request.patterns.length === 0 && action === "allow") action = "ask";
  return { action, message: "" };
}
