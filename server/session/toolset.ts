import { promises as fs } from "node:fs";
import path from "node:path";
import { type ToolSet, jsonSchema, tool as aiTool } from "ai";
import { z } from "zod";
import * as Agent from "../agent/agent";
import { type Layer, type LayerName, type RuleStack, disabled } from "../permission/layers";
import { type AgentRef, verdictOf } from "../permission/permission";
import type { Ruleset } from "../permission/schema";
import type { Services, SubagentCaller } from "../services";
import type { Boundary } from "../tool/tool";
import type { PermissionRequest, ToolContext } from "../tool/tool";
import { projectQuota } from "../project/quota";
import { outputDirectory } from "../tool/truncate";
import { type Call, isDoomLoop } from "./doom";
import type { WithParts } from "./message";
import type { Processor } from "./processor";
import * as Todo from "./todo";
import type { NearbyRules } from "../tool/tool";
import { logger } from "../log";

const log = logger("session");

/**
 * The tools of one step as the model sees them: the agent's tools that the rules do not
 * deny outright, each wrapped so that a call asks its permissions (defaults → config →
 * team and project policy → agent → approvals → session), watches for doom loops, reports
 * live to the step's processor, and runs with the step's reach (the project, the session's
 * saved outputs, nothing of other teams or of Parley's data).
 */

export interface ToolScope {
  sessionId: string;
  teamId: string;
  projectId: string;
  messageId: string;
  agent: Agent.Agent;
  /** The session's agents (the task tool lists their subagents). */
  agents: Agent.Agents;
  directory: string;
  signal: AbortSignal;
  /** The processor of the step: running tools report to it (a tool a member runs directly reports to its own part: shell.ts). */
  processor: Pick<Processor, "updateTool" | "beforeTool">;
  /** The tool calls made since the user's last message (for the doom-loop check). */
  calls: Call[];
  /** The rules of this step's calls (approvals are re-read at every question). */
  stack: RuleStack;
  /** Every layer with the approvals as they were at the step's start: which tools exist, `ctx.check`. */
  layers: Layer[];
  boundary: Boundary;
  /** This session as a subagent's child is made from (the task tool). */
  caller: SubagentCaller;
  /** The rule files `read` appends near a file it reads (server/instructions/nested.ts). */
  rules?: NearbyRules;
  /** Tools of this step besides the server's: the team's tool servers' (server/mcp). */
  extraTools?: Services["tools"];
}

/** The tool calls made since the user's last message, oldest first (for the doom-loop check). */
export function turnCalls(messages: WithParts[], userId: string): Call[] {
  const calls: Call[] = [];
  for (const m of messages) {
    if (m.info.id <= userId) continue;
    for (const p of m.parts) if (p.type === "tool") calls.push({ tool: p.tool, input: p.state.input });
  }
  return calls;
}

/**
 * The rules and reach of one step: the rule stack and its layers, and the places beyond
 * the project that are refused outright — the data directory, the projects root and every
 * other team's project, as they are now (symlinks resolved) — and the layers that decide
 * whether a folder outside may be reached at all (defaults, server config, team and
 * project policy: nothing a member can loosen). The team's other projects stay reachable
 * after a question where the policy opens them.
 */
export async function rulesAndReach(
  s: Services,
  input: { teamId: string; projectId: string; agent: AgentRef; sessionRules: Ruleset | undefined },
): Promise<Pick<ToolScope, "stack" | "layers" | "boundary">> {
  const { stack, layers, projects } = await s.permissions.scope(input.teamId, input.projectId, input.agent, input.sessionRules);
  const others = projects.filter((p) => p.teamId !== input.teamId).map((p) => p.directory);
  const boundary: Boundary = {
    forbidden: [...new Set([...s.settings.forbidden, ...others, ...(await Promise.all(others.map(currentLocation)))])],
    teamProjects: projects.filter((p) => p.teamId === input.teamId).map((p) => p.directory),
    savedOutputs: [],
    policy: layers.filter((layer) => POLICY_LAYERS.has(layer.name)),
  };
  return { stack, layers, boundary };
}

/** The layers that may open a folder outside the project: what the operator and the team's owners and admins set. */
const POLICY_LAYERS: ReadonlySet<LayerName> = new Set(["defaults", "config", "team", "project"]);

/** Where a directory is now (a symlink swapped in for it since it was registered is followed); as stored when it is gone. */
async function currentLocation(directory: string): Promise<string> {
  try {
    return await fs.realpath(directory);
  } catch (error) {
    if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR" || error.code === "EACCES")) return path.resolve(directory);
    throw error;
  }
}

/** How many sessions up a subagent's saved-output reach goes (parents of parents…). */
const MAX_ANCESTORS = 16;

/**
 * The saved-output folders of the sessions this one runs for (its parent, the parent's
 * parent…): a subagent reads what its parent's truncated tools saved (the hint of a cut
 * output tells the parent to hand it over), read-only.
 */
async function ancestorOutputs(s: Services, teamId: string, sessionId: string): Promise<string[]> {
  const dirs: string[] = [];
  let id: string | null = sessionId;
  for (let depth = 0; id !== null && depth < MAX_ANCESTORS; depth++) {
    const row: { parentId: string | null; teamId: string } | null = await s.db.session.findUnique({ where: { id }, select: { parentId: true, teamId: true } });
    if (!row || row.teamId !== teamId) break;
    if (row.parentId !== null) dirs.push(outputDirectory(s.settings.dataDir, teamId, row.parentId));
    id = row.parentId;
  }
  return dirs;
}

const permissionOf = Agent.permissionOf;

type JsonSchema = Parameters<typeof jsonSchema>[0];
/** A tool's parameters as JSON Schema, made once per schema (every step of every turn sends them). */
const inputSchemas = new WeakMap<z.ZodType, JsonSchema>();
function inputSchemaOf(parameters: z.ZodType): JsonSchema {
  let schema = inputSchemas.get(parameters);
  if (!schema) {
    schema = z.toJSONSchema(parameters, { io: "input" }) as JsonSchema;
    inputSchemas.set(parameters, schema);
  }
  return schema;
}

/**
 * One call of a tool in a scope: its doom-loop check, its permission questions, the
 * session's working tree made, the step's snapshot taken, then the tool run with the
 * step's reach. The model's calls come here, and so does a command a member runs himself
 * (`!cmd`: server/session/shell.ts).
 */
export async function runCall(
  s: Services,
  scope: ToolScope,
  t: Services["tools"][number],
  input: unknown,
  callId: string,
  signal: AbortSignal,
  savedOutputs: () => Promise<string[]>,
): Promise<Awaited<ReturnType<Services["executeTool"]>>> {
  const ask = (request: PermissionRequest) => askFor(s, scope, request, callId, signal);
  const call = { tool: t.id, input };
  const loop = isDoomLoop(scope.calls, call);
  scope.calls.push(call);
  if (loop) await ask({ permission: "doom_loop", patterns: [t.id], always: [t.id], metadata: { tool: t.id, input, kind: loop } });
  // The session's working tree, made when a tool first needs it (workspace.ts).
  const workspace = scope.caller.workspaceId ? await s.workspaces.ready(scope.caller.workspaceId) : undefined;
  // The step's files as they were before its first tool (the patch and revert need them).
  await scope.processor.beforeTool();
  const boundary: Boundary = { ...scope.boundary, savedOutputs: await savedOutputs() };
  const context = toolContext(s, { ...scope, boundary }, callId, signal, ask);
  return s.executeTool(t, input, workspace ? { ...context, gitObjects: workspace.objects } : context);
}

/** The saved-output folders a call of this session may read (its ancestors'), read once per step. */
export function savedOutputsOf(s: Services, scope: Pick<ToolScope, "teamId" | "sessionId">): () => Promise<string[]> {
  let ancestors: Promise<string[]> | undefined;
  return () => (ancestors ??= ancestorOutputs(s, scope.teamId, scope.sessionId));
}

export function toolSet(s: Services, scope: ToolScope): ToolSet {
  const set: ToolSet = {};
  const savedOutputs = savedOutputsOf(s, scope);
  for (const t of [...s.tools, ...(scope.extraTools ?? [])]) {
    if (!Agent.allows(scope.agent, t.id)) continue;
    // A session as deep as subagents may go starts none.
    if (t.id === "task" && scope.caller.depth >= s.agents.maxDepth) continue;
    if (disabled(permissionOf(t.id), scope.layers)) continue;
    set[t.id] = aiTool({
      description: t.describe?.({ subagents: scope.agents.subagents() }) ?? t.description,
      inputSchema: jsonSchema(t.jsonSchema ?? inputSchemaOf(t.parameters)),
      execute: async (input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal }) => runCall(s, scope, t, input, options.toolCallId, options.abortSignal ?? scope.signal, savedOutputs),
      toModelOutput: ({ output }: { output: { output: string } }) => ({ type: "text", value: output.output }),
    });
  }
  return set;
}

/**
 * Ask a call's permission. While a person has to answer, the tool part says so (its
 * running state's `approval`), for everyone watching the session and its share link.
 */
async function askFor(s: Services, scope: ToolScope, request: PermissionRequest, callId: string, signal: AbortSignal): Promise<void> {
  let asked = false;
  try {
    await s.permissions.ask({
      teamId: scope.teamId,
      projectId: scope.projectId,
      sessionId: scope.sessionId,
      agent: scope.agent.name,
      stack: scope.stack,
      request,
      tool: { messageId: scope.messageId, callId },
      signal,
      onAsked: (asking) => {
        asked = true;
        update(scope, callId, { approval: { permission: asking.permission } });
      },
    });
  } finally {
    if (asked) update(scope, callId, { approval: null });
  }
}

function toolContext(s: Services, scope: ToolScope, callId: string, signal: AbortSignal, ask: ToolContext["ask"]): ToolContext {
  return {
    sessionId: scope.sessionId,
    messageId: scope.messageId,
    callId,
    agent: scope.agent.name,
    directory: scope.directory,
    outputDir: outputDirectory(s.settings.dataDir, scope.teamId, scope.sessionId),
    boundary: scope.boundary,
    sandbox: s.sandbox,
    quota: projectQuota(s.quota, scope.directory),
    abort: signal,
    ask,
    check: (permission, pattern) => verdictOf({ permission, patterns: [pattern] }, scope.layers).action,
    update: (patch) => update(scope, callId, patch),
    canUse: (name) => Agent.allows(scope.agent, name) && s.tools.some((x) => x.id === name),
    ...(scope.rules ? { rules: scope.rules } : {}),
    todos: {
      read: () => Todo.read(s.db, scope.sessionId),
      write: (todos) => Todo.write(s, scope.teamId, scope.sessionId, todos),
    },
    task: (request) =>
      s.subagents.run(scope.caller, request, {
        signal,
        // The child's question shows on this call, for everyone watching (the task card answers it).
        progress: (progress) => update(scope, callId, { metadata: { ...progress }, approval: progress.asking ? { permission: progress.asking.permission } : null }),
      }),
  };
}

/** Update a running tool's title and metadata live (a failure is logged: the tool goes on). */
function update(scope: ToolScope, callId: string, patch: Parameters<Processor["updateTool"]>[1]): void {
  void scope.processor.updateTool(callId, patch).catch((error: unknown) => {
    log.error("could not update a running tool", error);
  });
}
