import { chmodSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { Agents } from "./agent/agent";
import type { Bus } from "./bus/bus";
import type { Config } from "./config";
import { clusterDirectory } from "./db/cluster";
import type { Db } from "./db/client";
import { trustedProxies } from "./auth/client-address";
import { AccessWatch } from "./live/access";
import { DEFAULT_STREAM_LIMITS } from "./live/limits";
import { LiveStreams } from "./live/streams";
import { PresenceBook } from "./presence/book";
import { Permissions } from "./permission/permission";
import { DiskQuota } from "./project/quota";
import { DEFAULT_MAX_WORKSPACES } from "./workspace/scope";
import { Workspaces } from "./workspace/workspace";
import type { Ruleset } from "./permission/schema";
import { availableModels, defaultModel, loadModel, smallModel } from "./provider/provider";
import { acrossInstances, forTeams, serverProviders } from "./provider/team";
import path from "node:path";
import { Sandbox } from "./sandbox/sandbox";
import { Keyring } from "./secrets/seal";
import { ToolServers } from "./mcp/hub";
import { Snapshots } from "./snapshot/snapshot";
import { type ExecuteTool, type Models, type Services, type Settings } from "./services";
import { type Clock, systemClock } from "./clock";
import { RunLock } from "./session/lock";
import { Runners } from "./session/runner";
import { runSubagent } from "./session/subagent";
import { FLUSH_MS, StreamedWrites } from "./session/writer";
import { builtinTools, executeTool } from "./tool/registry";
import type { Tool } from "./tool/tool";

/**
 * Putting the services together: the runtime does it once at start (server/runtime.ts),
 * tests and benchmarks with their own pieces (a scripted model, a short flush interval).
 */

export interface Parts {
  db: Db;
  bus: Bus;
  /** The run lock's own connection. */
  databaseUrl: string;
  /** A run lock of the caller's (tests track releases); else one on `databaseUrl`. */
  lock?: RunLock;
  sandbox: Sandbox;
  /** The keys of team secrets; else the key file `<dataDir>/secret-key` (made on first use). */
  keyring?: Keyring;
  /** Snapshots of the caller's; else stored in `<dataDir>/snapshot` with the system git. */
  snapshots?: Snapshots;
  models: Models;
  settings: Settings;
  /** The agents (built-in ones only when not given). */
  agents?: Agents;
  /** Server config permission rules (after the built-in defaults). */
  configRules?: Ruleset;
  clock?: Clock;
  tools?: Tool[];
  executeTool?: ExecuteTool;
}

export function assemble(parts: Parts): Services {
  const agents = parts.agents ?? new Agents();
  const snapshots =
    parts.snapshots ??
    new Snapshots({
      root: path.join(parts.settings.dataDir, "snapshot"),
      ...(parts.settings.limits?.snapshotMb === undefined ? {} : { maxNewBytes: parts.settings.limits.snapshotMb * 1024 * 1024 }),
    });
  const workspaceSettings = { dataDir: parts.settings.dataDir, maxPerProject: parts.settings.limits?.workspacesPerProject ?? DEFAULT_MAX_WORKSPACES,
    spares: parts.settings.limits?.spareWorkspaces ?? 0,
  };
  const keyring = parts.keyring ?? new Keyring({ keyFile: secretKeyFile(parts.settings.dataDir) });
  const clock = parts.clock ?? systemClock;
  const services: Services = {
    db: parts.db,
    bus: parts.bus,
    clock,
    lock: parts.lock ?? new RunLock(parts.databaseUrl),
    runners: new Runners(parts.bus),
    permissions: new Permissions(parts.db, parts.bus, { configRules: parts.configRules ?? [], agents }),
    sandbox: parts.sandbox,
    snapshots,
    workspaces: new Workspaces(parts.db, workspaceSettings, snapshots, () => parts.sandbox.owner),
    quota: new DiskQuota(parts.settings.limits?.projectDiskMb === undefined ? {} : { limitMb: parts.settings.limits.projectDiskMb }),
    keyring,
    models: acrossInstances(parts.models, parts.bus),
    agents,
    tools: parts.tools ?? builtinTools(),
    mcp: new ToolServers(parts.db, parts.bus, keyring, parts.sandbox, parts.settings, () => clock.now()),
    executeTool: parts.executeTool ?? executeTool,
    subagents: { run: (caller, request, io) => runSubagent(services, caller, request, io) },
    access: new AccessWatch(parts.bus, parts.db),
    presence: new PresenceBook(parts.bus, clock),
    streams: new LiveStreams(parts.bus, parts.settings.liveStreams ?? DEFAULT_STREAM_LIMITS, trustedProxies(parts.settings.trustedProxies ?? [])),
    streamedWrites: new StreamedWrites(parts.db, parts.settings.flushMs ?? FLUSH_MS),
    settings: parts.settings,
  };
  return services;
}

/** Where the server's secret key is kept when PARLEY_SECRET_KEY is unset: in the data directory, never the database. */
export function secretKeyFile(dataDir: string): string {
  return path.join(dataDir, "secret-key");
}

/** The keyring of a configuration: PARLEY_SECRET_KEY (or the key file) and PARLEY_SECRET_KEY_PREVIOUS. */
export function configKeyring(cfg: Config): Keyring {
  return new Keyring({ current: cfg.secretKeys.current, previous: cfg.secretKeys.previous, keyFile: secretKeyFile(cfg.dataDir) });
}

/**
 * The models of a configuration: OpenAI, Anthropic, Google, an OpenAI-compatible server,
 * the offline model — the catalog file read again when it changes — and each team's own
 * (server/provider/team.ts).
 */
export function configModels(cfg: Config): Models {
  const server = serverProviders(cfg);
  const current = () => ({ ...cfg, models: server.overrides() });
  const teams = forTeams(server);
  return {
    resolve: (ref) => loadModel(ref, current()),
    default: () => defaultModel(cfg),
    small: () => loadModel(smallModel(cfg), current()),
    available: () => availableModels(current()),
    forTeam: teams.forTeam,
    forgetTeam: teams.forgetTeam,
  };
}

/** A directory's real path (made when missing), so path checks see through symlinks. */
export function realDirectory(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

/**
 * The data directory holds the database's password, every team's saved outputs and
 * snapshots: no other user of the host may list or change it (README "Security model").
 * Only traversal stays for others — the embedded database's own OS user needs it when the
 * server is root; each entry inside is closed on its own.
 */
function closeToOthers(dir: string): void {
  const stat = statSync(dir);
  if (stat.uid === process.getuid?.() && (stat.mode & 0o066) !== 0) chmodSync(dir, stat.mode & 0o7711);
}

/** The settings of a configuration (directories made when missing). */
export function configSettings(cfg: Config): Settings {
  const dataDir = realDirectory(cfg.dataDir);
  closeToOthers(dataDir);
  return {
    dataDir,
    projectsRoot: cfg.projectsRoot,
    // Beyond the project, tools never reach Parley's own data (the embedded database's
    // cluster may live outside the data directory) or the folder of every team's projects.
    forbidden: [dataDir, realDirectory(cfg.projectsRoot), clusterDirectory(cfg.dataDir)],
    maxAttempts: cfg.retry.maxAttempts,
    compaction: cfg.compaction,
    share: cfg.share,
    publicUrl: cfg.publicUrl,
    liveStreams: cfg.liveStreams,
    trustedProxies: cfg.trustedProxies,
    limits: cfg.limits,
    git: cfg.git,
    instructions: cfg.instructions,
    mcp: cfg.mcp,
    commands: cfg.commands,
    ...(cfg.stream.windowMs === undefined ? {} : { streamWindowMs: cfg.stream.windowMs }),
  };
}

/**
 * The services of a configuration on a given database client and bus: its sandbox (probed
 * now), its models, its settings and permission rules. `overrides` replaces pieces (a
 * benchmark's own models, say).
 */
export async function configServices(cfg: Config, db: Db, bus: Bus, overrides: Partial<Parts> = {}): Promise<Services> {
  if (!cfg.databaseUrl) throw new Error("DATABASE_URL is not set");
  return assemble({
    db,
    bus,
    databaseUrl: cfg.databaseUrl,
    sandbox: overrides.sandbox ?? (await Sandbox.create(cfg.sandbox)),
    models: configModels(cfg),
    settings: configSettings(cfg),
    keyring: configKeyring(cfg),
    configRules: cfg.permission,
    agents: new Agents(cfg.agents, { maxDepth: cfg.subagents.maxDepth }),
    ...overrides,
  });
}
