import { describe, expect, it } from "vitest";
import { DEFAULTS } from "./evaluate";
import { type RuleStack, decide, isPolicyQuestion, layers } from "./layers";
import type { Ruleset } from "./schema";

/** The layers' order and what a policy's `deny` and `ask` leave to later layers (SPEC §10). */

const ask = (permission: string, pattern = "*") => ({ permission, pattern, action: "ask" as const });
const allow = (permission: string, pattern = "*") => ({ permission, pattern, action: "allow" as const });
const deny = (permission: string, pattern = "*") => ({ permission, pattern, action: "deny" as const });

function stack(parts: Partial<RuleStack>): RuleStack {
  return { defaults: DEFAULTS, config: [], team: [], project: [], agent: [], ...parts };
}
const none = { members: [] as Ruleset, admins: [] as Ruleset };

describe("layers: a policy ask is final like a deny", () => {
  it("N6: a member's approval, an agent's allow and a session's allow leave a team policy's ask a question", () => {
    const rules = layers(stack({ team: [ask("bash")], agent: [allow("bash")], session: [allow("bash")] }), { members: [allow("bash", "echo *")], admins: [] });
    const decision = decide("bash", "echo hi", rules);
    expect(decision).toMatchObject({ action: "ask", layer: "team" });
    expect(isPolicyQuestion(decision)).toBe(true);
  });

  it("N6: an owner's or admin's approval answers it; a later session ask still asks", () => {
    const rules = layers(stack({ team: [ask("bash")] }), { members: [], admins: [allow("bash", "echo *")] });
    expect(decide("bash", "echo hi", rules)).toMatchObject({ action: "allow", layer: "adminApprovals" });
    expect(decide("bash", "rm x", rules)).toMatchObject({ action: "ask", layer: "team" });
    const stricter = layers(stack({ team: [ask("bash")], session: [ask("bash", "echo *")] }), { members: [], admins: [allow("bash", "echo *")] });
    const decision = decide("bash", "echo hi", stricter);
    expect(decision).toMatchObject({ action: "ask", layer: "session" });
    expect(isPolicyQuestion(decision)).toBe(false);
  });

  it("later layers may make a policy ask stricter: a deny denies", () => {
    const rules = layers(stack({ config: [ask("bash")], project: [deny("bash", "rm *")], session: [deny("bash", "curl *")] }), none);
    expect(decide("bash", "rm -rf x", rules)).toMatchObject({ action: "deny", layer: "project" });
    expect(decide("bash", "curl x", rules)).toMatchObject({ action: "deny", layer: "session" });
    expect(decide("bash", "ls", rules)).toMatchObject({ action: "ask", layer: "config" });
  });

  it("a project policy cannot loosen the team's ask, but within one layer the last rule wins", () => {
    expect(decide("bash", "git status", layers(stack({ team: [ask("bash")], project: [allow("bash", "git *")] }), none))).toMatchObject({ action: "ask", layer: "team" });
    expect(decide("bash", "git status", layers(stack({ team: [ask("bash"), allow("bash", "git *")] }), none))).toMatchObject({ action: "allow", layer: "team" });
  });

  it("the defaults' ask is no policy question: a member's approval answers it", () => {
    const rules = layers(stack({}), { members: [allow("bash", "echo *")], admins: [] });
    expect(decide("bash", "echo hi", rules)).toMatchObject({ action: "allow", layer: "approvals" });
    const asked = decide("bash", "rm x", rules);
    expect(asked.action).toBe("ask");
    expect(isPolicyQuestion(asked)).toBe(false);
  });

  it("a policy deny stays final, an admin's approval included", () => {
    const rules = layers(stack({ team: [deny("bash", "curl *")] }), { members: [], admins: [allow("bash", "curl *")] });
    expect(decide("bash", "curl x", rules)).toMatchObject({ action: "deny", layer: "team" });
  });
});
