import { z } from "zod";
import { ParleyError } from "../errors";
import { ConfigRules, fromConfig } from "../permission/evaluate";
import type { Rule, Ruleset } from "../permission/schema";

/**
 * Agents: who answers a turn, with which tools and limits. Primary agents chat with the
 * user; subagents run in child sessions via the task tool (or `@name` in a message);
 * hidden ones do internal work. The built-in ones are below; the server's configuration
 * may add its own (`agents` in parley.config.json), available to every team.
 */
export interface Agent {
  name: string;
  description: string;
  mode: "primary" | "subagent" | "hidden";
  /** Tools switched off for this agent. */
  disabledTools: string[];
  /** When set, the only tools this agent has (before `disabledTools`). */
  enabledTools?: string[];
  /** Maximum model steps per turn. */
  steps: number;
  /** Extra system instructions. */
  prompt?: string;
  /** The model this agent answers with (a subagent's child session uses it); the session's when unset. */
  model?: { providerId: string; modelId: string };
  permission: Ruleset;
}

const READ_ONLY_DISABLED = ["write", "edit", "bash"];
const SUBAGENT_DISABLED = ["task", "todowrite", "todoread"];

const BUILT_IN: Agent[] = [
  {
    name: "build",
    description: "The default agent: reads and edits the project's files and runs commands.",
    mode: "primary",
    disabledTools: [],
    steps: 50,
    permission: [],
  },
  {
    name: "plan",
    description: "Plans without changing anything: read-only tools.",
    mode: "primary",
    disabledTools: READ_ONLY_DISABLED,
    steps: 50,
    prompt: "You are in plan mode: investigate and propose a plan; do not modify files.",
    permission: [],
  },
  {
    name: "general",
    description: "A general-purpose subagent for searches and multi-step tasks.",
    mode: "subagent",
    disabledTools: SUBAGENT_DISABLED,
    steps: 30,
    permission: [],
  },
  {
    name: "explore",
    description: "A read-only subagent that searches and reads the project to answer a question (no edits, no commands).",
    mode: "subagent",
    disabledTools: [...READ_ONLY_DISABLED, ...SUBAGENT_DISABLED],
    steps: 30,
    prompt: "You explore the project to answer a question: search and read, then report what you found, with file paths. Do not modify anything.",
    permission: [],
  },
  {
    name: "compaction",
    description: "Writes the summary that replaces old history.",
    mode: "hidden",
    disabledTools: ["*"],
    steps: 1,
    permission: [],
  },
];

export const DEFAULT_AGENT = "build";

/** Subagent sessions nest at most this many levels below a root session unless configured (`subagents.maxDepth`). */
export const DEFAULT_SUBAGENT_MAX_DEPTH = 2;

const Name = z.string().regex(/^[A-Za-z][\w-]{0,39}$/, "an agent name is a letter, then letters, digits, - or _ (at most 40)");

/** An agent in parley.config.json: `"agents": {"reviewer": {"description": "…", "tools": ["read", "grep"]}}`. */
export const AgentConfig = z
  .object({
    description: z.string().min(1).max(500),
    /** "subagent" (the default: run by the task tool or `@name`) or "primary" (chosen for a session). */
    mode: z.enum(["primary", "subagent"]).optional(),
    prompt: z.string().max(20_000).optional(),
    /** "provider/model". */
    model: z.string().regex(/^[^/\s]+\/\S+$/, 'expected "provider/model"').optional(),
    /** The only tools it has; all when omitted (a subagent never gets task or the todo tools). */
    tools: z.array(z.string().min(1)).optional(),
    /** Its rules, like the config's `permission`: read after the team and project policy, whose denies stay final. */
    permission: ConfigRules.optional(),
    steps: z.number().int().min(1).max(200).optional(),
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfig>;
export const AgentsConfig = z.record(Name, AgentConfig);
export type AgentsConfig = z.infer<typeof AgentsConfig>;

function fromAgentConfig(name: string, config: AgentConfig): Agent {
  const mode = config.mode ?? "subagent";
  const [providerId, ...rest] = config.model?.split("/") ?? [];
  return {
    name,
    description: config.description,
    mode,
    disabledTools: mode === "subagent" ? SUBAGENT_DISABLED : [],
    ...(config.tools ? { enabledTools: config.tools } : {}),
    steps: config.steps ?? 30,
    ...(config.prompt ? { prompt: config.prompt } : {}),
    ...(providerId && rest.length ? { model: { providerId, modelId: rest.join("/") } } : {}),
    permission: fromConfig(config.permission),
  };
}

/** The agents of this server: the built-in ones and those of its configuration. */
export class Agents {
  private readonly byName = new Map<string, Agent>();
  /**
   * How many levels of subagent sessions a root session may have below it (a root session
   * is at depth 0, its children at 1…): a session at this depth is offered no `task` tool,
   * and a task call or an `@agent` prompt in it is refused.
   */
  readonly maxDepth: number;

  constructor(config: AgentsConfig = {}, options: { maxDepth?: number } = {}) {
    this.maxDepth = options.maxDepth ?? DEFAULT_SUBAGENT_MAX_DEPTH;
    for (const agent of BUILT_IN) this.byName.set(agent.name, agent);
    for (const [name, agent] of Object.entries(config)) {
      if (this.byName.has(name)) throw new Error(`the configured agent "${name}" has the name of a built-in agent`);
      this.byName.set(name, fromAgentConfig(name, agent));
    }
  }

  /** An agent by name, or undefined. */
  find(name: string): Agent | undefined {
    return this.byName.get(name);
  }

  /** An agent by name; the default agent for an unknown or missing name. */
  get(name: string | undefined): Agent {
    return this.byName.get(name ?? DEFAULT_AGENT) ?? (this.byName.get(DEFAULT_AGENT) as Agent);
  }

  /**
   * The agent a member asked for (session.create, session.prompt): like `get`, but a hidden
   * agent (compaction) does the server's internal work and is refused (INVALID).
   */
  choose(name: string | undefined): Agent {
    const agent = this.get(name);
    if (agent.mode === "hidden") throw ParleyError.invalid(`the agent "${agent.name}" is internal and cannot be chosen`, { agent: agent.name });
    return agent;
  }

  /** The agents the task tool can run. */
  subagents(): Agent[] {
    return [...this.byName.values()].filter((agent) => agent.mode === "subagent");
  }
}

/** Whether an agent has a tool. */
export function allows(agent: Agent, tool: string): boolean {
  if (agent.enabledTools && !agent.enabledTools.includes(tool)) return false;
  return !agent.disabledTools.includes("*") && !agent.disabledTools.includes(tool);
}

/** The permission a tool asks under (write edits files). */
export function permissionOf(tool: string): string {
  return tool === "write" ? "edit" : tool;
}

/**
 * The rules a child session inherits from the agent that started it, so that a subagent
 * never has more than that agent: a deny for every tool of `tools` the agent lacks (a
 * child of the read-only `plan` cannot edit, write or run commands, whatever its own
 * agent allows) and the agent's own deny rules. Added after the parent session's rules,
 * they only make the child's rules stricter; its children inherit them in turn.
 */
export function inheritedRules(parent: Agent, tools: readonly string[]): Ruleset {
  // A permission shared by two tools (write and edit ask "edit") is denied when the agent lacks either.
  const denied = new Set(tools.filter((tool) => !allows(parent, tool)).map(permissionOf));
  const rules: Rule[] = [...denied].sort().map((permission) => ({ permission, pattern: "*", action: "deny" as const }));
  return [...rules, ...parent.permission.filter((rule) => rule.action === "deny")];
}
