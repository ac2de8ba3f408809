import type { z } from "zod";
import type { Agent } from "../agent/agent";
import type { Sandbox } from "../sandbox/sandbox";
import type { Todo } from "../session/todo-item";
import type { Layer } from "../permission/layers";

/** Where a tool may reach besides its project (tool/paths.ts resolves every path against it). */
export interface Boundary {
  /** Real paths no tool may reach (the data directory, the projects root, other teams' projects). */
  forbidden: string[];
  /** Real paths of this team's other projects: reachable after the question, although they lie in the projects root. */
  teamProjects: string[];
  /** Saved outputs of the sessions this one runs for (its parent, their parents): read without a question, never written. */
  savedOutputs?: string[];
  /**
   * The layers that decide whether a place outside the project may be reached at all:
   * the built-in defaults, the server configuration, the team's and the project's policy
   * (missing: the built-in defaults alone, which deny it).
   */
  policy?: Layer[];
}

export interface NestedRule {
  /** Its path relative to the workspace. */
  label: string;
  /** "Instructions from: <label>" and its text. */
  text: string;
}

/** What `read` uses: the rules near a file it read (`readable`: whether the rules let the agent read one; a denied one is left out). */
export interface NearbyRules {
  near(file: string, readable?: (label: string) => boolean): Promise<NestedRule[]>;
}

/**
 * A tool the agent can call: a zod input schema, a description for the model,
 * and `execute`, which returns a title, the output the model reads, metadata for the UI
 * and optional file attachments.
 */

export interface PermissionRequest {
  /** e.g. "bash", "edit", "read", "external_directory". */
  permission: string;
  /** What is asked for, matched against rule patterns (a command, a path…). */
  patterns: string[];
  /** Patterns an "always" answer would allow from now on (defaults to `patterns`; empty: no "always" is offered). */
  always?: string[];
  /**
   * The request could not be fully understood (a shell command the parser could not
   * read): it asks every time, whatever allow rule or stored approval would match; a deny
   * still denies.
   */
  mustAsk?: boolean;
  metadata?: Record<string, unknown>;
}

export type Verdict = "allow" | "ask" | "deny";

export interface ToolContext {
  sessionId: string;
  messageId: string;
  callId: string;
  agent: string;
  /** The session's workspace (the project directory for sessions made before workspaces): every file tool is confined to it. */
  directory: string;
  /** Object folders the workspace's own `.git` borrows (its project's store, the project's): the sandbox shows them read-only. */
  gitObjects?: string[];
  /** This session's saved outputs (truncated tool output): the session reads them without a question. */
  outputDir: string;
  /** What lies beyond the project: refused outright, or reachable after a question. */
  boundary: Boundary;
  /** Runs every process a tool starts. */
  sandbox: Sandbox;
  /** The project's disk quota (server/project/quota.ts); unset: none is enforced. */
  quota?: ProjectQuota;
  abort: AbortSignal;
  /**
   * Ask for permission. Resolves when allowed; rejects with an error (whose message the
   * model sees) when denied or rejected.
   */
  ask(request: PermissionRequest): Promise<void>;
  /** What the rules say about a request, without asking anyone (grep skips files `read` would ask about). */
  check(permission: string, pattern: string): Verdict;
  /** Update the running tool part's title and metadata live. */
  update(patch: { title?: string; metadata?: Record<string, unknown> }): void;
  /** Whether the calling agent may use a tool (e.g. "task", for the truncation hint). */
  canUse(tool: string): boolean;
  /** Rule files near a file `read` opened that this turn has not seen yet (absent: none are appended). */
  rules?: NearbyRules;
  todos: {
    read(): Promise<Todo[]>;
    write(todos: Todo[]): Promise<void>;
  };
  /** Run a subagent in a child session of this one (the task tool); rejects when it fails. */
  task(request: SubagentRequest): Promise<SubagentResult>;
}

/** One project's disk quota, as a tool sees it. */
export interface ProjectQuota {
  /** Refuse (an error the model sees) a change adding `bytes` that would take the project past its quota. */
  assertRoom(bytes: number, what: string): Promise<void>;
  /** The project changed by `bytes` (a file tool's own write). */
  changed(bytes: number): void;
  /** Measured now (after a command): what to tell when the project is over its quota, else undefined. */
  overNow(): Promise<string | undefined>;
}

export interface SubagentRequest {
  description: string;
  prompt: string;
  /** The subagent's name. */
  agent: string;
  /** An earlier child session of this session to continue in. */
  taskId?: string;
  /** The member wrote the prompt (an `@agent` message), not the calling agent: the child's message is theirs. */
  fromMember?: true;
}

/** One tool call of a child session, as the parent's task card shows it. */
export interface ChildCall {
  id: string;
  tool: string;
  state: { status: string; title?: string };
}

export interface SubagentResult {
  sessionId: string;
  /** The child's final answer. */
  text: string;
  summary: ChildCall[];
}

export interface Attachment {
  mime: string;
  filename?: string;
  url: string;
}

export interface ToolResult {
  title: string;
  output: string;
  metadata: Record<string, unknown>;
  attachments?: Attachment[];
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  id: string;
  description: string;
  /** The description as the model sees it on this server, when it depends on the server (the task tool lists its subagents). */
  describe?(env: { subagents: Agent[] }): string;
  parameters: S;
  /** The input schema as the model sees it, when it came as JSON Schema (a tool server's); else made from `parameters`. */
  jsonSchema?: Record<string, unknown>;
  /** The tool server a tool comes from (server/mcp), and its own name there. */
  source?: { server: string; tool: string };
  execute(input: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

export function define<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  return tool;
}

/** An error whose message is meant for the model (and the user), e.g. a path outside the project. */
export class ToolError extends Error {
  override name = "ToolError";
}
