import { z } from "zod";
import { ParleyError } from "../errors";
import { ConfigRules, fromConfig, matches } from "../permission/evaluate";
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
  /** "all": chosen for a session and run as a subagent alike (OpenCode's default for agent files). */
  mode: "primary" | "subagent" | "all" | "hidden";
  /** Kept out of the lists members pick from (the task tool may still run it). */
  hidden?: boolean;
  /** Where it is defined: built in, the server's configuration, or a file of the session's repository. */
  source: "built-in" | "config" | "project";
  /** Tools switched off for this agent. */
  disabledTools: string[];
  /** `tools: {name: bool}` of an agent file, in order (names may be wildcards): the last that matches a tool decides. */
  toolSwitches?: Array<{ pattern: string; enabled: boolean }>;
  /** When set, the only tools this agent has (before `disabledTools`). */
  enabledTools?: string[];
  /** Maximum model steps per turn. */
  steps: number;
  /** Extra system instructions. */
  prompt?: string;
  /** The prompt replaces Parley's base prompt (an agent file's body does, as in OpenCode). */
  replacesPrompt?: boolean;
  /** Sampling temperature; the provider's default when unset. */
  temperature?: number;
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
    source: "built-in",
    disabledTools: [],
    steps: 50,
    permission: [],
  },
  {
    name: "plan",
    description: "Plans without changing anything: read-only tools.",
    mode: "primary",
    source: "built-in",
    disabledTools: READ_ONLY_DISABLED,
    steps: 50,
    prompt: "You are in plan mode: investigate and propose a plan; do not modify files.",
    permission: [],
  },
  {
    name: "general",
    description: "A general-purpose subagent for searches and multi-step tasks.",
    mode: "subagent",
    source: "built-in",
    disabledTools: SUBAGENT_DISABLED,
    steps: 30,
    permission: [],
  },
  {
    name: "explore",
    description: "A read-only subagent that searches and reads the project to answer a question (no edits, no commands).",
    mode: "subagent",
    source: "built-in",
    disabledTools: [...READ_ONLY_DISABLED, ...SUBAGENT_DISABLED],
    steps: 30,
    prompt: "You explore the project to answer a question: search and read, then report what you found, with file paths. Do not modify anything.",
    permission: [],
  },
  {
    name: "compaction",
    description: "Writes the summary that replaces old history.",
    mode: "hidden",
    source: "built-in",
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
    /** Required for an agent of the configuration; a built-in agent's entry only sets its `steps`. */
    description: z.string().min(1).max(500).optional(),
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

function modelOf(ref: string | undefined): Agent["model"] | undefined {
  const [providerId, ...rest] = ref?.split("/") ?? [];
  return providerId && rest.length ? { providerId, modelId: rest.join("/") } : undefined;
}

function fromAgentConfig(name: string, config: AgentConfig): Agent {
  if (!config.description) throw new Error(`the configured agent "${name}" needs a description`);
  const mode = config.mode ?? "subagent";
  const model = modelOf(config.model);
  return {
    name,
    description: config.description,
    mode,
    source: "config",
    disabledTools: mode === "subagent" ? SUBAGENT_DISABLED : [],
    ...(config.tools ? { enabledTools: config.tools } : {}),
    steps: config.steps ?? 30,
    ...(config.prompt ? { prompt: config.prompt } : {}),
    ...(model ? { model } : {}),
    permission: fromConfig(config.permission),
  };
}

/**
 * An agent file of a repository (`.opencode/agent/<name>.md`), as OpenCode reads it: its
 * frontmatter (other OpenCode keys, such as `color`, are accepted and ignored) and its
 * body, the agent's prompt.
 */
export const AgentFile = z.object({
  name: Name.optional(),
  description: z.string().trim().min(1, "an agent file needs a description").max(2_000),
  mode: z.enum(["primary", "subagent", "all"]).optional(),
  model: z.string().regex(/^[^/\s]+\/\S+$/, 'expected "provider/model"').max(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
  steps: z.number().int().min(1).max(200).optional(),
  tools: z.record(z.string().min(1).max(100), z.boolean()).optional(),
  permission: ConfigRules.optional(),
  hidden: z.boolean().optional(),
  disable: z.boolean().optional(),
});
export type AgentFile = z.infer<typeof AgentFile>;

/** The tools that ask one permission: switching one of them off in `tools` switches off all (OpenCode: `write: false` also removes `edit`). */
const SAME_PERMISSION: Record<string, string[]> = { write: ["write", "edit"], edit: ["write", "edit"] };

/**
 * An agent file as an agent; `base` is the agent of the same name it changes (a built-in
 * or the configuration's), whose fields it keeps where the file is silent. The file's
 * permission rules come after the base's, in the agent layer: below the server config
 * and the team's and project's policy, whose deny and ask stay final (layers.ts). Beyond
 * OpenCode, a repository's file may only make its agent stricter: its `deny` and `ask`
 * rules apply, its `allow` rules do not (a file in a branch cannot stop the built-in
 * questions — bash, `.env` files, doom loops — for whoever picks the agent; owners and
 * admins open things in the policy, members with "Always").
 */
export function fromAgentFile(name: string, file: AgentFile, body: string, base: Agent | undefined): Agent {
  const model = modelOf(file.model) ?? base?.model;
  const switches = Object.entries(file.tools ?? {}).flatMap(([pattern, enabled]) => (SAME_PERMISSION[pattern] ?? [pattern]).map((p) => ({ pattern: p, enabled })));
  const mode = file.mode ?? (base && base.mode !== "hidden" ? base.mode : "all");
  const prompt = body.trim() ? body.trim() : base?.prompt;
  const temperature = file.temperature ?? base?.temperature;
  const toolSwitches = [...(base?.toolSwitches ?? []), ...switches];
  return {
    name,
    description: file.description,
    mode,
    source: "project",
    ...(file.hidden ? { hidden: true } : {}),
    disabledTools: base?.disabledTools ?? (mode === "subagent" ? SUBAGENT_DISABLED : []),
    ...(base?.enabledTools ? { enabledTools: base.enabledTools } : {}),
    ...(toolSwitches.length ? { toolSwitches } : {}),
    steps: file.steps ?? base?.steps ?? (mode === "subagent" ? 30 : 50),
    ...(prompt ? { prompt } : {}),
    ...(body.trim() ? { replacesPrompt: true } : base?.replacesPrompt ? { replacesPrompt: true } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(model ? { model } : {}),
    permission: [...(base?.permission ?? []), ...fromConfig(file.permission).filter((rule) => rule.action !== "allow")],
  };
}

/** The agents of this server: the built-in ones and those of its configuration (and, for one session, its repository's: `withProject`). */
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
      const builtIn = this.byName.get(name);
      if (builtIn) {
        // A built-in agent's entry may set its steps, nothing else.
        const { steps, ...rest } = agent;
        if (Object.keys(rest).length > 0) throw new Error(`the configured agent "${name}" has the name of a built-in agent: only its "steps" may be set`);
        if (steps !== undefined) this.byName.set(name, { ...builtIn, steps });
        continue;
      }
      this.byName.set(name, fromAgentConfig(name, agent));
    }
  }

  /**
   * These agents with a repository's (agent files of a session's working tree): a file
   * adds an agent, or changes the built-in or configured one of its name (`disable`
   * removes it). The internal `compaction` agent and the default agent's removal are
   * refused (named in `problems`).
   */
  withProject(files: ReadonlyArray<{ name: string; file: AgentFile; body: string; path: string }>, problems: string[] = []): Agents {
    const next = new Agents({}, { maxDepth: this.maxDepth });
    next.byName.clear();
    for (const [name, agent] of this.byName) next.byName.set(name, agent);
    for (const { name, file, body, path } of files) {
      const base = next.byName.get(name);
      if (base?.mode === "hidden") {
        problems.push(`${path}: "${name}" is an internal agent and cannot be changed`);
        continue;
      }
      if (file.disable) {
        if (name === DEFAULT_AGENT) problems.push(`${path}: the default agent "${name}" cannot be disabled`);
        else next.byName.delete(name);
        continue;
      }
      next.byName.set(name, fromAgentFile(name, file, body, base));
    }
    return next;
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

  /** The agents the task tool can run (`subagent` and `all`). */
  subagents(): Agent[] {
    return [...this.byName.values()].filter(isSubagent);
  }

  /** The agents a member picks for a session (`primary` and `all`, not hidden). */
  primaries(): Agent[] {
    return [...this.byName.values()].filter((agent) => (agent.mode === "primary" || agent.mode === "all") && !agent.hidden);
  }
}

/** Whether the task tool (or `@name`) can run an agent. */
export function isSubagent(agent: Agent): boolean {
  return agent.mode === "subagent" || agent.mode === "all";
}

/** Whether an agent has a tool. */
export function allows(agent: Agent, tool: string): boolean {
  if (agent.enabledTools && !agent.enabledTools.includes(tool)) return false;
  let enabled = !agent.disabledTools.includes("*") && !agent.disabledTools.includes(tool);
  // An agent file's `tools`: the last switch matching the tool decides (it cannot give back a tool the agent's kind lacks).
  if (!enabled) return false;
  for (const { pattern, enabled: on } of agent.toolSwitches ?? []) if (matches(pattern, tool)) enabled = on;
  return enabled;
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
