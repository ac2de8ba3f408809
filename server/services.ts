import type { InstructionSettings } from "./instructions/sources";
import type { AccessWatch } from "./live/access";
import type { StreamLimits } from "./live/limits";
import type { LiveStreams } from "./live/streams";
import type { McpSettings } from "./mcp/config";
import type { ToolServers } from "./mcp/hub";
import type { LanguageModel } from "ai";
import type { Actor } from "./actor";
import type { Clock } from "./clock";
import type { SharedV4ProviderOptions } from "@ai-sdk/provider";
import type { Agents } from "./agent/agent";
import type { CommandsConfig } from "./command/config";
import type { Bus } from "./bus/bus";
import type { Db } from "./db/client";
import type { Permissions } from "./permission/permission";
import type { PresenceBook } from "./presence/book";
import type { Ruleset } from "./permission/schema";
import type { ProviderLimits } from "./provider/limits";
import type { ModelInfo, ModelRef } from "./provider/model-info";
import type { DiskQuota } from "./project/quota";
import type { Sandbox } from "./sandbox/sandbox";
import type { Keyring } from "./secrets/seal";
import type { Snapshots } from "./snapshot/snapshot";
import type { Workspaces } from "./workspace/workspace";
import type { RunLock } from "./session/lock";
import type { Runners } from "./session/runner";
import type { StreamedWrites } from "./session/writer";
import type { Prices } from "./session/usage";
import type { ChildCall, SubagentRequest, SubagentResult, Tool, ToolContext, ToolResult } from "./tool/tool";

/**
 * The server's services — built once at start (server/runtime.ts; tests build their own,
 * test/runtime.ts) — and the one context a caller acts in: the services plus who is
 * acting. Every domain function takes one of the two; none reaches for a global.
 */




/** A model ready to call, with what the loop needs to know about it. */
export interface ResolvedModel {
  ref: ModelRef;
  language: LanguageModel;
  limit: { context: number; input?: number; output: number };
  cost: Prices;
  /** Whether the model sees images; false sends a note in their place. Unset: images are sent as they are. */
  images?: boolean;
  /** What its provider may send (server/provider/limits.ts); unset: DEFAULT_PROVIDER_LIMITS. */
  providerLimits?: ProviderLimits;
  /** What each call asks of its provider (prompt caching, thinking: server/provider/provider.ts). */
  providerOptions?: SharedV4ProviderOptions;
}

/** The models of this server: resolving a `provider/model` reference, the default, the small one. */
export interface Models {
  resolve(ref: ModelRef): ResolvedModel;
  default(): ModelRef;
  /** The small/fast model for titles; without one, the session's model is used. */
  small?(): ResolvedModel;
  /** Every model offered in the picker. */
  available(): ModelInfo[];
  /** The model compaction uses when one is set (a team's small model); else the session's own. */
  compaction?(): ResolvedModel;
  /** The model a team set for an agent's turns, if any. */
  agentModel?(agent: string): ModelRef | undefined;
  /**
   * A team's models (server/provider/team.ts): its own keys (or the operator's, when offered),
   * its enabled models, default, small and per-agent models. Without it every team has these.
   */
  forTeam?(s: Pick<Services, "db" | "keyring">, teamId: string): Promise<Models & { details?: TeamModelDetails }>;
  /** Forgets what `forTeam` kept of a team (its keys, models or secrets changed on this instance). */
  forgetTeam?(teamId: string): void;
}

/** What the Team page's Providers section shows and tests of a team's models (server/provider/admin.ts). */
export interface TeamModelDetails {
  /** Every model the team could enable. */
  catalog(): ModelInfo[];
  /** Where each provider's key comes from: the team's secret, the operator's environment, or nowhere. */
  sources: Record<string, "team" | "server" | "none">;
  /** A model with the team's keys, enabled or not (the key test). */
  load(ref: ModelRef): ResolvedModel;
  /** Whether a team's base URL may be http:// (`providers.allowHttp`). */
  allowHttp: boolean;
  /** Whether the operator offers its environment keys to teams. */
  serverKeys: "all" | "none";
  /** The team's monthly spending limits in USD (null: none), read with its model settings (server/spending). */
  limits: { team: number | null; member: number | null };
}

export type ExecuteTool = (tool: Tool, input: unknown, ctx: ToolContext) => Promise<ToolResult>;

/** Settings read from the configuration that the domain needs. */
export interface Settings {
  /** The data directory (real path): saved tool outputs live below it. */
  dataDir: string;
  /** Where team admins may register projects. */
  projectsRoot: string;
  /** Places no tool may reach besides other teams' projects (real paths). */
  forbidden: string[];
  /** Provider attempts per step before the error is kept. */
  maxAttempts: number;
  compaction: { auto: boolean; prune: boolean };
  /** How often streamed text is persisted (ms); default 250. */
  flushMs?: number;
  /** Streamed changes of a part published less than this long (ms) after its last are sent together at its end; default 16, 0 = each at once. */
  streamWindowMs?: number;
  share: "auto" | "manual" | "disabled";
  /** Base of share URLs, e.g. "https://parley.example.com"; relative URLs when unset. */
  publicUrl?: string | undefined;
  /** Caps on open live streams per user, address and share link; default DEFAULT_STREAM_LIMITS. */
  liveStreams?: StreamLimits;
  /** Reverse proxies whose X-Forwarded-For is believed (server/auth/client-address.ts); default none. */
  trustedProxies?: string[];
  /** Which remotes admins may clone from besides https/ssh/git (server/project/remote.ts); default neither. */
  git?: { allowLocalRemotes: boolean; allowHttp: boolean };
  /** Prompt commands of the server configuration (`command`), for every team. */
  commands?: CommandsConfig;
  /** A project's disk quota and the new files one snapshot may store (MB); defaults in quota.ts and snapshot.ts. Live workspaces per project, and spare trees per project (none when unset). */
  limits?: { projectDiskMb?: number; snapshotMb?: number; workspacesPerProject?: number; spareWorkspaces?: number };
  /** The configured instruction files and URLs (server/instructions); default none. */
  instructions?: InstructionSettings;
  /** The configuration's tool servers (`mcp`) and whether private addresses may be reached (server/mcp); default none. */
  mcp?: McpSettings;
}

/**
 * The session a subagent works for, as its runner read it at the step's start (the child
 * is made from it without reading the parent again).
 */
export interface SubagentCaller {
  teamId: string;
  sessionId: string;
  projectId: string;
  directory: string;
  /** The session's workspace (its children share it); null for a session made before workspaces existed. */
  workspaceId: string | null;
  /** The child acts for the parent session's author. */
  authorId: string;
  model?: ModelRef;
  /** The parent session's rules, which the child inherits. */
  permission?: Ruleset;
  /** The agent of the calling turn: the child never gets a tool it lacks (agent.ts inheritedRules). */
  agent: string;
  /** How deep the calling session is: 0 for a root session, 1 for its children… (capped by Agents.maxDepth). */
  depth: number;
}

/** A child's live progress for its task call: its tool calls, and the question one of them waits on. */
export interface SubagentProgress {
  sessionId: string;
  summary: ChildCall[];
  /** A permission question the child (or a subagent of it) waits on: which session asks, and which permission. */
  asking: { sessionId: string; permission: string } | null;
}

/** Runs subagents in child sessions (server/session/subagent.ts), for the task tool. */
export interface Subagents {
  run(caller: SubagentCaller, request: SubagentRequest, io: { signal: AbortSignal; progress(metadata: SubagentProgress): void }): Promise<SubagentResult>;
}

export interface Services {
  db: Db;
  bus: Bus;
  clock: Clock;
  /** One runner per session across instances. */
  lock: RunLock;
  /** The runners of this process. */
  runners: Runners;
  permissions: Permissions;
  /** Runs every process a tool starts. */
  sandbox: Sandbox;
  /** Snapshots of project files (git trees), for patches and revert. */
  snapshots: Snapshots;
  /** Each root session's working tree on its own branch (server/workspace/workspace.ts). */
  workspaces: Workspaces;
  /** The disk quota of each project (server/project/quota.ts). */
  quota: DiskQuota;
  /** The keys team secrets are sealed under (server/secrets): only that module uses them. */
  keyring: Keyring;
  models: Models;
  /** The built-in agents and those of the configuration. */
  agents: Agents;
  tools: Tool[];
  /** The tool servers (MCP) of every team on this instance: their connections and tools (server/mcp). */
  mcp: ToolServers;
  executeTool: ExecuteTool;
  subagents: Subagents;
  /** Live streams of members, ended when their access ends (server/live/access.ts). */
  access: AccessWatch;
  /** Who views and types in which session, as heard from every instance (server/presence). */
  presence: PresenceBook;
  /** Live streams open on this process: their caps, and runners' sync answers to each (server/live/streams.ts). */
  streams: LiveStreams;
  /** Streamed part changes of every running turn, persisted together (session/writer.ts). */
  streamedWrites: StreamedWrites;
  settings: Settings;
}

/** What a caller acts in: the services and who is acting. */
export interface Context extends Services {
  actor: Actor;
}

export function withActor(services: Services, actor: Actor): Context {
  return { ...services, actor };
}
