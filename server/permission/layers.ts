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
 * `deny` decided by the server config or by the team's or project's policy is final —
 * nothing after it (a project rule, an agent, an approval, a session rule) can turn it
 * back into ask or allow. Within one layer the last matching rule still wins, so a policy
 * may deny `bash` and allow `git *` after it.
 */

export type LayerName = "defaults" | "config" | "team" | "project" | "agent" | "approvals" | "session";

export interface Layer {
  name: LayerName;
  rules: Ruleset;
  /** A deny this layer decides cannot be undone by later layers. */
  final: boolean;
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

export function layers(stack: RuleStack, approvals: Ruleset): Layer[] {
  return [
    { name: "defaults", rules: stack.defaults, final: false },
    { name: "config", rules: stack.config, final: true },
    { name: "team", rules: stack.team, final: true },
    { name: "project", rules: stack.project, final: true },
    { name: "agent", rules: stack.agent, final: false },
    { name: "approvals", rules: approvals, final: false },
    { name: "session", rules: stack.session ?? [], final: false },
  ];
}

/**
 * What the layers say about one pattern of a request. `mustAsk` (a request that could not
 * be fully understood) turns an allow into ask; a deny stays a deny.
 */
export function decide(permission: string, pattern: string, stack: Layer[], options: { mustAsk?: boolean; budget?: Budget } = {}): Decision {
  let decision: Decision = { action: "ask" };
  for (const layer of stack) {
    for (const rule of layer.rules) {
      if (matches(rule.permission, permission) && matches(rule.pattern, pattern, options.budget)) decision = { action: rule.action, rule, layer: layer.name };
    }
    if (layer.final && decision.action === "deny" && decision.layer === layer.name) break;
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
