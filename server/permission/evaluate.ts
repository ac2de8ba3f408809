import { z } from "zod";
import { type Budget, wildcard as compileWildcard } from "../../lib/match";
import { type Action, type Rule, type Ruleset, Action as ActionSchema } from "./schema";

/**
 * Permission rules. A pattern is a wildcard: `*` matches any run of
 * characters (including none), `?` exactly one. `evaluate` takes rulesets in order
 * (defaults, team/project config, agent, session) and the LAST matching rule wins; no
 * match means "ask".
 */

/**
 * A compiled rule pattern: `*` any run, `?` one character, a trailing `" *"` optional
 * (`git status *` also matches `git status`). Linear-time, never backtracks (lib/match.ts);
 * throws `PatternTooLongError` for patterns over 4,096 characters.
 */
export function wildcard(pattern: string): (value: string, budget?: Budget) => boolean {
  return compileWildcard(pattern);
}

export function matches(pattern: string, value: string, budget?: Budget): boolean {
  return compileWildcard(pattern)(value, budget);
}

export interface Decision {
  action: Action;
  /** The rule that decided, when one matched. */
  rule?: Rule;
}

export function evaluate(permission: string, pattern: string, ...rulesets: (Ruleset | undefined)[]): Decision {
  let decision: Decision = { action: "ask" };
  for (const ruleset of rulesets) {
    for (const rule of ruleset ?? []) {
      if (matches(rule.permission, permission) && matches(rule.pattern, pattern)) decision = { action: rule.action, rule };
    }
  }
  return decision;
}

/** Config shorthand: `{"bash": "ask"}` = pattern "*"; `{"edit": {"*.env": "deny"}}` = one rule per glob. */
export const ConfigRules = z.record(z.string().min(1), z.union([ActionSchema, z.record(z.string().min(1), ActionSchema)]));
export type ConfigRules = z.infer<typeof ConfigRules>;

export function fromConfig(config: ConfigRules | undefined): Ruleset {
  const rules: Ruleset = [];
  for (const [permission, value] of Object.entries(config ?? {})) {
    if (typeof value === "string") rules.push({ permission, pattern: "*", action: value });
    else for (const [pattern, action] of Object.entries(value)) rules.push({ permission, pattern, action });
  }
  return rules;
}

/**
 * Defaults for a shared server: reading tools allow; edits inside the project allow;
 * bash, doom loops, and reading or editing `.env` files ask (grep skips the files reading
 * would ask about). Paths outside the project are denied: only the server configuration
 * or an owner's or admin's team or project policy may open a folder outside (per path);
 * a member's session rules and "Always" answers cannot (server/tool/paths.ts).
 */
export const DEFAULTS: Ruleset = fromConfig({
  "*": "allow",
  bash: "ask",
  external_directory: "deny",
  doom_loop: "ask",
  read: { "*": "allow", "*.env": "ask", "*.env.*": "ask", "*.env.example": "allow" },
  edit: { "*": "allow", "*.env": "ask", "*.env.*": "ask", "*.env.example": "allow" },
});

/** True when a tool can never run under these rules (denied for every pattern), so the model need not see it. */
export function disabled(permission: string, ...rulesets: (Ruleset | undefined)[]): boolean {
  let result = false;
  for (const ruleset of rulesets) {
    for (const rule of ruleset ?? []) {
      if (!matches(rule.permission, permission)) continue;
      if (rule.pattern === "*") result = rule.action === "deny";
      else if (rule.action !== "deny") result = false;
    }
  }
  return result;
}
