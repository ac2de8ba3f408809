import { type MCPClient, auth } from "@ai-sdk/mcp";
import { z } from "zod";
import type { Db } from "../db/client";
import type { Bus } from "../bus/bus";
import { TeamKept } from "../bus/team-kept";
import type { Ruleset } from "../permission/schema";
import { Secrets } from "../secrets";
import type { Keyring } from "../secrets/seal";
import type { Tool } from "../tool/tool";
import type { InstructionSource } from "../session/message";
import { block, sha256 } from "../instructions/sources";
import { type McpSettings, NO_MCP_SETTINGS } from "./config";
import { Connection, type Listing, type Status, remoteClient } from "./connection";
import { localClient } from "./local";
import { NeedsConnectError, StoredOAuth } from "./oauth";
import { guardedFetch } from "./fetch";
import type { Sandbox } from "../sandbox/sandbox";
import { type Spec, specs } from "./servers";
import { mcpTool } from "./tools";
import { logger } from "../log";

const log = logger("mcp");

/**
 * The tool servers of this instance (SPEC §17): one connection per (team, server), made at
 * the first call, shared by the team's sessions and closed when idle or at shutdown. A
 * step's tools come from the tool list cached in the database (read from the server when
 * none is cached or the server was changed since), so a session's tools stay the same
 * across instances and restarts; a step never waits long for a server that does not answer
 * (its tools are left out, with its status saying why).
 */

/** A connection closes after this long without a call (ms). */
export const DEFAULT_IDLE_MS = 5 * 60_000;
/** How long connecting and listing may take (ms). */
export const CONNECT_TIMEOUT_MS = 10_000;
/** Bytes one answer of a tool server may carry. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** The share of the model's context the tool definitions of tool servers may take before a warning. */
export const CONTEXT_WARNING_SHARE = 0.2;
/** A local server that failed to start or crashed is started again after 1 s, then 2, 4… at most 30 s. */
export const LOCAL_BACKOFF_MS = 1_000;
/** OAuth tokens that expire within this long are refreshed before a connection (ms). */
export const TOKEN_REFRESH_MARGIN_MS = 60_000;

const CachedTools = z.array(z.object({ name: z.string(), description: z.string().optional(), inputSchema: z.record(z.string(), z.unknown()) }));

export interface StepTools {
  tools: Tool[];
  /** The servers' instructions, as system prompt blocks. */
  instructions: string[];
  /** The same, as the answer records them (its "Instructions:" line): "tool server <name>". */
  sources: InstructionSource[];
  /** The built-in rule of each tool: ask (team policy and approvals may allow or deny). */
  defaults: Ruleset;
  /** Said when the tools' definitions take a large share of the model's context. */
  warning?: string;
}

export interface ServerState {
  status: Status;
  tools: Array<{ name: string; id: string; description?: string }>;
  /** Tools left out, and why (a schema that cannot be read). */
  refused: Array<{ name: string; reason: string }>;
  listedAt: number | null;
}

/** Roughly the tokens tool definitions take in a request (4 characters a token). */
export function toolTokens(tools: ReadonlyArray<Pick<Tool, "id" | "description" | "jsonSchema">>): number {
  return Math.ceil(tools.reduce((sum, t) => sum + t.description.length + JSON.stringify(t.jsonSchema ?? {}).length + t.id.length, 0) / 4);
}

/** The warning when tool definitions of `tokens` take more than CONTEXT_WARNING_SHARE of a model's `contextTokens`; else undefined. */
export function contextWarning(tokens: number, contextTokens: number): string | undefined {
  if (contextTokens <= 0 || tokens <= contextTokens * CONTEXT_WARNING_SHARE) return undefined;
  return `The tools of this team's tool servers take about ${tokens} tokens, ${Math.round((tokens / contextTokens) * 100)}% of the model's context: consider an allow-list of tools.`;
}

/** The label of a server's instructions among a turn's sources. */
export const sourceLabel = (name: string) => `tool server ${name}`;

export class ToolServers {
  private readonly connections = new Map<string, { version: number; connection: Connection }>();
  readonly settings: McpSettings;
  /** The team's servers of each project, as every step reads them: until `forget` (save and remove call it). */
  private readonly kept: TeamKept<Spec[]>;

  constructor(
    private readonly db: Db,
    bus: Bus,
    private readonly keyring: Keyring,
    private readonly sandbox: Sandbox,
    settings: { mcp?: McpSettings | undefined },
    private readonly now: () => number = Date.now,
    private readonly idleMs = DEFAULT_IDLE_MS,
  ) {
    this.settings = settings.mcp ?? NO_MCP_SETTINGS;
    this.kept = new TeamKept(bus, "tool-servers");
  }

  /** The servers a project's sessions use (servers.ts `specs`), kept until a team's servers change. */
  specs(teamId: string, projectId: string | undefined): Promise<Spec[]> {
    return this.kept.get(teamId, projectId ?? "", () => specs(this.db, this.settings, teamId, projectId));
  }

  /** The team's servers changed (stored): every instance reads them again. */
  forget(teamId: string): void {
    this.kept.forget(teamId);
  }

  /** The values of headers or environment variables: literal, or a team secret's. */
  private async values(teamId: string, refs: Spec["headers"] | Spec["environment"]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const ref of refs) {
      if ("value" in ref) out[ref.name] = ref.value;
      else out[ref.name] = `${"prefix" in ref ? (ref.prefix ?? "") : ""}${await Secrets.reveal({ db: this.db, keyring: this.keyring }, teamId, ref.secret)}`;
    }
    return out;
  }

  /** The project a local server runs in: the given one, or the team's first. */
  private async project(teamId: string, projectId: string | undefined): Promise<{ id: string; directory: string }> {
    const row = await this.db.project.findFirst({ where: { teamId, ...(projectId ? { id: projectId } : {}) }, orderBy: { createdAt: "asc" }, select: { id: true, directory: true } });
    if (!row) throw new Error("a local tool server runs in one of the team's projects, and the team has none");
    return row;
  }

  private key(teamId: string, spec: Spec, projectId: string | undefined, userId: string | undefined): string {
    if (spec.type === "local") return `${teamId}|${spec.key}|${projectId ?? ""}`;
    return spec.oauthPerMember ? `${teamId}|${spec.key}|user:${userId ?? ""}` : `${teamId}|${spec.key}`;
  }

  /**
   * The team's connection to a server (a changed server gets a new one); a local server's
   * runs in `projectId`'s project; a server connected per member is `userId`'s own.
   */
  async connection(teamId: string, spec: Spec, projectId?: string, userId?: string): Promise<Connection> {
    const key = this.key(teamId, spec, projectId, userId);
    const known = this.connections.get(key);
    if (known && known.version === spec.version) return known.connection;
    if (known) void known.connection.close();
    const onError = (error: unknown) => connection.failed(error);
    let open: () => Promise<MCPClient>;
    let secrets: Record<string, string>;
    if (spec.type === "remote") {
      const headers = (secrets = await this.values(teamId, spec.headers));
      const remote = { url: spec.url, headers, allowPrivate: this.settings.allowPrivateAddresses, maxResponseBytes: MAX_RESPONSE_BYTES, connectTimeoutMs: CONNECT_TIMEOUT_MS, onError };
      open = spec.oauth ? () => this.openWithOAuth(teamId, spec, remote, userId) : () => remoteClient(remote);
    } else {
      const env = (secrets = await this.values(teamId, spec.environment));
      const { directory } = await this.project(teamId, projectId);
      const local = { sandbox: this.sandbox, command: spec.command, directory, env, writable: spec.writable, network: spec.network };
      open = () => localClient({ ...local, maxMessageChars: MAX_RESPONSE_BYTES, connectTimeoutMs: CONNECT_TIMEOUT_MS, onError });
    }
    const connection: Connection = new Connection({
      open,
      secrets: Object.values(secrets),
      idleMs: this.idleMs,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      backoffMs: spec.type === "local" ? LOCAL_BACKOFF_MS : 0,
      ...(spec.oauth ? { needsConnect: () => new NeedsConnectError(spec.name, spec.oauthPerMember) } : {}),
      now: this.now,
    });
    this.connections.set(key, { version: spec.version, connection });
    return connection;
  }

  /** A guarded fetch for the OAuth endpoints of a server (discovery, registration, tokens). */
  oauthFetch(): typeof fetch {
    // Each answer is read whole: a server that sends its headers and then stalls cannot hold a connection (or a "Connect") for ever.
    return guardedFetch({ allowPrivate: this.settings.allowPrivateAddresses, maxResponseBytes: 1024 * 1024, headersTimeoutMs: CONNECT_TIMEOUT_MS, totalTimeoutMs: CONNECT_TIMEOUT_MS });
  }

  /** A client of an OAuth server with the team's stored tokens, refreshed first when they are about to expire. */
  private async openWithOAuth(teamId: string, spec: Spec, remote: Omit<Parameters<typeof remoteClient>[0], "authProvider">, userId: string | undefined): Promise<MCPClient> {
    const store = { db: this.db, keyring: this.keyring, clock: { now: this.now } };
    const provider = await StoredOAuth.load(store, teamId, spec, userId ? { userId } : {});
    if (!provider.connected) throw new NeedsConnectError(spec.name, spec.oauthPerMember);
    if (provider.expiresWithin(TOKEN_REFRESH_MARGIN_MS)) await auth(provider, { serverUrl: spec.url, fetchFn: this.oauthFetch() });
    return remoteClient({ ...remote, authProvider: provider });
  }

  /** Forgets the team's connection to a server (new tokens: the next use connects with them). */
  async reset(teamId: string, spec: Spec, projectId?: string, userId?: string): Promise<void> {
    const key = this.key(teamId, spec, projectId, userId);
    const known = this.connections.get(key);
    this.connections.delete(key);
    await known?.connection.close();
  }

  status(teamId: string, spec: Spec, projectId?: string, userId?: string): Status {
    const known = this.connections.get(this.key(teamId, spec, projectId, userId));
    return known && known.version === spec.version ? known.connection.status : { state: "idle", since: this.now() };
  }

  /** The cached listing of a server when it is as new as the server's settings; else undefined. */
  private async cached(teamId: string, spec: Spec): Promise<(Listing & { at: number }) | undefined> {
    const row = await this.db.toolServerTools.findUnique({ where: { teamId_server: { teamId, server: spec.key } } });
    if (!row || row.updatedAt.getTime() < spec.version) return undefined;
    const tools = CachedTools.safeParse(row.tools);
    if (!tools.success) return undefined;
    return { tools: tools.data, ...(row.instructions ? { instructions: row.instructions } : {}), at: row.updatedAt.getTime() };
  }

  /** Reads the server's tools now and caches them for the team. */
  async refresh(teamId: string, spec: Spec, projectId?: string, userId?: string): Promise<Listing & { at: number }> {
    const listing = await (await this.connection(teamId, spec, projectId, userId)).list();
    const at = Math.max(this.now(), spec.version);
    // Checked to be JSON (what the server sent was parsed from JSON; nothing else can be in it).
    const data = { tools: z.array(z.json()).parse(listing.tools), instructions: listing.instructions ?? null, updatedAt: new Date(at) };
    await this.db.toolServerTools.upsert({ where: { teamId_server: { teamId, server: spec.key } }, create: { teamId, server: spec.key, ...data }, update: data });
    return { ...listing, at };
  }

  /** A server's tools for the team: cached, or read now. */
  async listing(teamId: string, spec: Spec, projectId?: string, userId?: string): Promise<Listing & { at: number }> {
    return (await this.cached(teamId, spec)) ?? this.refresh(teamId, spec, projectId, userId);
  }

  /** What the Team page shows of a server: its status here, and its tools as cached. */
  async state(teamId: string, spec: Spec, projectId?: string, userId?: string): Promise<ServerState> {
    const listing = await this.cached(teamId, spec);
    const state: ServerState = { status: this.status(teamId, spec, projectId, userId), tools: [], refused: [], listedAt: listing?.at ?? null };
    for (const info of listing?.tools ?? []) {
      const made = mcpTool(spec.name, info, () => Promise.resolve(undefined));
      if ("refused" in made) state.refused.push({ name: info.name, reason: made.refused });
      else state.tools.push({ name: info.name, id: made.id, ...(info.description ? { description: info.description } : {}) });
    }
    return state;
  }

  /** Calls a server's tool for a team; `signal` cancels it (the server is told). */
  async call(teamId: string, spec: Spec, tool: string, args: Record<string, unknown>, signal: AbortSignal, projectId?: string, userId?: string): Promise<unknown> {
    const connection = await this.connection(teamId, spec, projectId, userId);
    return connection.use((client) => client.callTool({ name: tool, arguments: args, options: { signal, timeout: spec.timeoutMs } }), signal);
  }

  /**
   * The tools of a step of a project's session: every enabled server's allowed tools, its
   * instructions, their default rule (ask), and a warning when they would take more than
   * CONTEXT_WARNING_SHARE of `contextTokens`. A server that cannot be listed is left out.
   * `userId` is whom the session acts for (its author): a server connected per member uses their tokens.
   */
  async forStep(teamId: string, projectId: string, contextTokens: number, userId?: string): Promise<StepTools> {
    const out: StepTools = { tools: [], instructions: [], sources: [], defaults: [] };
    for (const spec of (await this.specs(teamId, projectId)).filter((s) => s.enabled)) {
      let listing: Listing;
      try {
        listing = await this.listing(teamId, spec, projectId, userId);
      } catch (error) {
        log.warn(`tool server ${spec.name} of team ${teamId} is left out of this step: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      for (const made of this.offered(spec, listing, (tool, args, signal) => this.call(teamId, spec, tool, args, signal, projectId, userId))) {
        if (out.tools.some((t) => t.id === made.id)) continue;
        out.tools.push(made);
        out.defaults.push({ permission: made.id, pattern: "*", action: "ask" });
      }
      const text = listing.instructions?.trim();
      if (text) {
        out.instructions.push(block(sourceLabel(spec.name), text));
        out.sources.push({ kind: "server", label: sourceLabel(spec.name), bytes: Buffer.byteLength(text), sha256: sha256(text) });
      }
    }
    const warning = contextWarning(toolTokens(out.tools), contextTokens);
    return warning ? { ...out, warning } : out;
  }

  /** A server's tools a step offers: those of its allow-list (all without one) whose schemas can be read. */
  private offered(spec: Spec, listing: Listing, call: Parameters<typeof mcpTool>[2]): Tool[] {
    const out: Tool[] = [];
    for (const info of listing.tools) {
      if (spec.allow && !spec.allow.includes(info.name)) continue;
      const made = mcpTool(spec.name, info, call);
      if (!("refused" in made)) out.push(made);
    }
    return out;
  }

  /**
   * What the enabled servers' tools would take of a model's context, from their cached
   * lists (nothing is connected): the Team page's warning. Servers never listed count nothing.
   */
  async budget(teamId: string, projectId: string | undefined, contextTokens: number): Promise<{ tokens: number; tools: number; warning?: string }> {
    const tools: Tool[] = [];
    for (const spec of (await this.specs(teamId, projectId)).filter((s) => s.enabled)) {
      const listing = await this.cached(teamId, spec);
      if (!listing) continue;
      for (const made of this.offered(spec, listing, () => Promise.resolve(undefined))) if (!tools.some((t) => t.id === made.id)) tools.push(made);
    }
    const tokens = toolTokens(tools);
    const warning = contextWarning(tokens, contextTokens);
    return { tokens, tools: tools.length, ...(warning ? { warning } : {}) };
  }

  /** The instructions a server announced, as cached for the team (a turn's "Instructions:" line opens them). */
  async instructionsOf(teamId: string, projectId: string | undefined, name: string): Promise<string | undefined> {
    const spec = (await this.specs(teamId, projectId)).find((s) => sourceLabel(s.name) === name || s.name === name);
    if (!spec) return undefined;
    const row = await this.db.toolServerTools.findUnique({ where: { teamId_server: { teamId, server: spec.key } }, select: { instructions: true } });
    return row?.instructions?.trim() || undefined;
  }

  /** Closes every connection (shutdown). */
  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.connection.close()));
  }
}
