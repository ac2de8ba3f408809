import type { Layer, RuleStack } from "../permission/layers";
import type { Ruleset } from "../permission/schema";

export { ToolServers, type StepTools } from "./hub";
export * as ToolServerConfig from "./servers";

/**
 * A step's rules with the built-in rule of its tool servers' tools (ask) added to the
 * defaults: the server configuration, the team's and project's policy, approvals and a
 * session's rules come after it, so they may allow or deny a server's tools like any other.
 */
export function withToolDefaults<R extends { stack: RuleStack; layers: Layer[] }>(reach: R, defaults: Ruleset): R {
  if (defaults.length === 0) return reach;
  return {
    ...reach,
    stack: { ...reach.stack, defaults: [...reach.stack.defaults, ...defaults] },
    layers: reach.layers.map((layer) => (layer.name === "defaults" ? { ...layer, rules: [...layer.rules, ...defaults] } : layer)),
  };
}
