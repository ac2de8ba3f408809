import { z } from "zod";

/** A permission rule: the last matching rule across the rulesets wins. */
export const Action = z.enum(["allow", "deny", "ask"]);
export type Action = z.infer<typeof Action>;

export const Rule = z.object({
  permission: z.string().min(1).max(100),
  pattern: z.string().min(1).max(1000),
  action: Action,
});
export type Rule = z.infer<typeof Rule>;

export const Ruleset = z.array(Rule).max(500);
export type Ruleset = z.infer<typeof Ruleset>;
