import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config";
import { Agents, allows, inheritedRules } from "./agent";

/** The agents of a server: the built-in ones and those its configuration adds. */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "parley-agents-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function configWith(agents: unknown) {
  writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ agents }));
  return loadConfig({}, dir);
}

describe("Agents", () => {
  it("has the built-in subagents, and those of the configuration with their tools, model, prompt and rules", () => {
    const cfg = configWith({
      reviewer: { description: "Reviews code.", tools: ["read", "grep"], model: "openai/gpt-4.1-mini", prompt: "Review.", permission: { grep: "deny" } },
      lead: { description: "Leads.", mode: "primary" },
    });
    const agents = new Agents(cfg.agents);
    expect(agents.subagents().map((a) => a.name)).toEqual(["general", "explore", "reviewer"]);
    const reviewer = agents.find("reviewer");
    expect(reviewer).toMatchObject({ mode: "subagent", model: { providerId: "openai", modelId: "gpt-4.1-mini" }, prompt: "Review.", permission: [{ permission: "grep", pattern: "*", action: "deny" }] });
    if (!reviewer) throw new Error("no reviewer");
    expect(["read", "grep", "bash", "task", "todowrite"].filter((tool) => allows(reviewer, tool))).toEqual(["read", "grep"]);
    expect(agents.get("lead").mode).toBe("primary");
    expect(agents.get("nobody").name).toBe("build");
    const explore = agents.get("explore");
    expect(["read", "grep", "list", "glob", "write", "edit", "bash", "task"].filter((tool) => allows(explore, tool))).toEqual(["read", "grep", "list", "glob"]);
  });

  it("refuses a badly named agent, an unknown setting, and a configured agent named like a built-in one", () => {
    expect(() => configWith({ "no spaces": { description: "x" } })).toThrow(ConfigError);
    expect(() => configWith({ reviewer: { description: "x", tools: "read" } })).toThrow(/agents\.reviewer\.tools/);
    expect(() => configWith({ reviewer: { description: "x", colour: "red" } })).toThrow(ConfigError);
    expect(() => new Agents(configWith({ explore: { description: "mine" } }).agents)).toThrow(/built-in agent/);
  });
});

describe("what a child inherits from the agent that started it", () => {
  const tools = ["bash", "edit", "glob", "grep", "list", "read", "task", "todoread", "todowrite", "write"];

  it("N11: a child of the read-only plan agent is denied edit (and so write) and bash", () => {
    const rules = inheritedRules(new Agents().get("plan"), tools);
    expect(rules).toEqual([
      { permission: "bash", pattern: "*", action: "deny" },
      { permission: "edit", pattern: "*", action: "deny" },
    ]);
  });

  it("a child of build inherits nothing; a configured agent passes on what it lacks and its denies", () => {
    expect(inheritedRules(new Agents().get("build"), tools)).toEqual([]);
    const agents = new Agents(configWith({ reviewer: { description: "Reviews.", mode: "primary", tools: ["read", "grep", "task"], permission: { read: { "*.pem": "deny", "*": "allow" } } } }).agents);
    const rules = inheritedRules(agents.get("reviewer"), tools);
    expect(rules.map((r) => r.permission)).toEqual(["bash", "edit", "glob", "list", "todoread", "todowrite", "read"]);
    expect(rules.at(-1)).toEqual({ permission: "read", pattern: "*.pem", action: "deny" });
  });

  it("N10: subagents nest two levels unless configured", () => {
    expect(new Agents().maxDepth).toBe(2);
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ subagents: { maxDepth: 1 } }));
    expect(loadConfig({}, dir).subagents).toEqual({ maxDepth: 1 });
    expect(loadConfig({ PARLEY_SUBAGENT_MAX_DEPTH: "3" }, dir).subagents).toEqual({ maxDepth: 3 });
    expect(() => loadConfig({ PARLEY_SUBAGENT_MAX_DEPTH: "-1" }, dir)).toThrow(ConfigError);
  });
});
