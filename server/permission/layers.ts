import { type Budget, MatchBudgetError } from "../../lib/match";
import { matches } from "./evaluate";
import type { Action, Rule, Ruleset } from "./schema";

/**
 * The order in which permission rules are read, and who may loosen what:
 *
 *   built-in defaults → server config → team policy → project policy → agent
 *     → stored "always" approvals → the session's own rules
 *
 * Across all of them the last matching rule wins (no match: ask), with one exception: a
 * `deny` or an `ask` decided by the server config or by the team's or project's policy is
 * final — later layers (a project rule after a team rule, an agent, an approval, a session
 * rule) may only make it stricter: after a policy `ask` a later `deny` still denies, a
 * later `allow` leaves it a question; after a policy `deny` nothing matters. The one way
 * past a policy question is an approval an owner or admin stored ("Always allow" on a
 * question the policy asks, layer `adminApprovals`): it applies to the whole team, like
 * the policy it bypasses, and the Approvals page names who granted it. Within one layer
 * the last matching rule still wins, so a policy may ask for `bash` and allow `git *`
 * after it.
 */

export type LayerName = "defaults" | "config" | "team" | "project" | "agent" | "approvals" | "adminApprovals" | "session";

/** The policy layers: their `deny` and `ask` are final. */
export const POLICY_LAYERS: readonly LayerName[] = ["config", "team", "project"];

export interface Layer {
  name: LayerName;
  rules: Ruleset;
  /** A deny or ask this layer decides cannot be loosened by later layers. */
  final: boolean;
  /** Its allow rules may answer a question a final layer holds (owners' and admins' approvals). */
  bypass?: boolean;
}

export interface Decision {
  action: Action;
  /** The rule that decided, when one matched. */
  rule?: Rule;
  /** The layer of that rule. */
  layer?: LayerName;
}

/** The rule sets of one request, in evaluation order (approvals are added by the permission service). */
export interface RuleStack {
  defaults: Ruleset;
  config: Ruleset;
  team: Ruleset;
  project: Ruleset;
  agent: Ruleset;
  session?: Ruleset | undefined;
}

/** Stored "always" approvals: those granted by members, and those granted by owners and admins (which may answer a policy question). */
export interface StoredApprovals {
  members: Ruleset;
  admins: Ruleset;
}

export function layers(stack: RuleStack, approvals: StoredApprovals): Layer[] {
  return [
    { name: "defaults", rules: stack.defaults, final: false },
    { name: "config", rules: stack.config, final: true },
    { name: "team", rules: stack.team, final: true },
    { name: "project", rules: stack.project, final: true },
    { name: "agent", rules: stack.agent, final: false },
    { name: "approvals", rules: approvals.members, final: false },
    { name: "adminApprovals", rules: approvals.admins, final: false, bypass: true },
    { name: "session", rules: stack.session ?? [], final: false },
  ];
}

/** Whether a decision is a question the server config or the team's or project's policy holds ("always" is then for owners and admins). */
export function isPolicyQuestion(decision: Decision): boolean {
  return decision.action === "ask" && decision.layer !== undefined && POLICY_LAYERS.includes(decision.layer);
}

/**
 * What the layers say about one pattern of a request. `mustAsk` (a request that could not
 * be fully understood) turns an allow into ask; a deny stays a deny.
 */
export function decide(permission: string, pattern: string, stack: Layer[], options: { mustAsk?: boolean; budget?: Budget } = {}): Decision {
  let decision: Decision = { action: "ask" };
  /** A final layer's ask: later layers may deny, but not allow (except a bypassing layer). */
  let held: Decision | undefined;
  for (const layer of stack) {
    let own: Decision | undefined;
    for (const rule of layer.rules) {
      if (matches(rule.permission, permission) && matches(rule.pattern, pattern, options.budget)) own = { action: rule.action, rule, layer: layer.name };
    }
    if (!own) continue;
    if (layer.final && own.action === "deny") {
      decision = own;
      break;
    }
    if (layer.final && own.action === "ask") {
      decision = held = own;
      continue;
    }
    // Under a held question only a deny (stricter) or a bypassing approval changes the answer.
    if (held && own.action !== "deny" && !(layer.bypass && own.action === "allow")) {
      decision = held;
      continue;
    }
    decision = own;
    if (own.action === "allow") held = undefined;
  }
  if (options.mustAsk && decision.action === "allow") return { action: "ask" };
  return decision;
}

/**
 * True when a tool can never run under these layers (denied for every pattern), so the
 * model need not see it: the last rule for the permission with pattern `*` is a deny and
 * no later rule allows or asks for some pattern — or a final layer decided so.
 */
export function disabled(permission: string, stack: Layer[]): boolean {
  let result = false;
  for (const layer of stack) {
    let decidedHere = false;
    for (const rule of layer.rules) {
      if (!matches(rule.permission, permission)) continue;
      if (rule.pattern === "*") {
        result = rule.action === "deny";
        decidedHere = true;
      } else if (rule.action !== "deny") {
        result = false;
        decidedHere = true;
      }
    }
    if (layer.final && result && decidedHere) return true;
  }
  return result;
}

/** Matching work one request may cost (see lib/match.ts Budget): far beyond real rules, a few tens of ms at worst. */
export const DECISION_BUDGET = 4_000_000;

export { MatchBudgetError };

/** A readable description of the rule that denied a request. */
export function describeDenial(permission: string, pattern: string, decision: Decision): string {
  const rule = decision.rule;
  const where = decision.layer === "config" ? " (server configuration)" : decision.layer === "team" ? " (team policy)" : decision.layer === "project" ? " (project policy)" : decision.layer === "session" ? " (this session's rules)" : "";
  return (
    `Permission denied: "${permission}" for "${pattern}" is denied by the rule ` +
    `{permission: "${rule?.permission ?? "*"}", pattern: "${rule?.pattern ?? "*"}", action: "deny"}${where}.`
  );
}
