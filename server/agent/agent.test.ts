import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config";
import { Agents, allows } from "./agent";

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
