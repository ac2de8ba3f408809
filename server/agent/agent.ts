import type { Ruleset } from "../permission/schema";

/**
 * Agents: who answers a turn, with which tools and limits. Primary agents chat with the
 * user; subagents run in child sessions via the task tool; hidden ones do internal work.
 */
export interface Agent {
  name: string;
  description: string;
  mode: "primary" | "subagent" | "hidden";
  /** Tools switched off for this agent (all others are available). */
  disabledTools: string[];
  /** Maximum model steps per turn. */
  steps: number;
  /** Extra system instructions. */
  prompt?: string;
  permission: Ruleset;
}

const READ_ONLY_DISABLED = ["write", "edit", "bash"];

export const AGENTS: Record<string, Agent> = {
  build: {
    name: "build",
    description: "The default agent: reads and edits the project's files and runs commands.",
    mode: "primary",
    disabledTools: [],
    steps: 50,
    permission: [],
  },
  plan: {
    name: "plan",
    description: "Plans without changing anything: read-only tools.",
    mode: "primary",
    disabledTools: READ_ONLY_DISABLED,
    steps: 50,
    prompt: "You are in plan mode: investigate and propose a plan; do not modify files.",
    permission: [],
  },
  general: {
    name: "general",
    description: "A general-purpose subagent for searches and multi-step tasks.",
    mode: "subagent",
    disabledTools: ["task", "todowrite", "todoread"],
    steps: 30,
    permission: [],
  },
  explore: {
    name: "explore",
    description: "A read-only subagent that searches and reads the project to answer a question (no edits, no commands).",
    mode: "subagent",
    disabledTools: [...READ_ONLY_DISABLED, "task", "todowrite", "todoread"],
    steps: 30,
    prompt: "You explore the project to answer a question: search and read, then report what you found, with file paths. Do not modify anything.",
    permission: [],
  },
  compaction: {
    name: "compaction",
    description: "Writes the summary that replaces old history.",
    mode: "hidden",
    disabledTools: ["*"],
    steps: 1,
    permission: [],
  },
};

export const DEFAULT_AGENT = "build";

export function get(name: string | undefined): Agent {
  return AGENTS[name ?? DEFAULT_AGENT] ?? (AGENTS[DEFAULT_AGENT] as Agent);
}

/** The agents the task tool can run. */
export function subagents(): Agent[] {
  return Object.values(AGENTS).filter((agent) => agent.mode === "subagent");
}

export function allows(agent: Agent, tool: string): boolean {
  return !agent.disabledTools.includes("*") && !agent.disabledTools.includes(tool);
}
