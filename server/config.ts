import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { AgentsConfig, DEFAULT_SUBAGENT_MAX_DEPTH } from "./agent/agent";
import { CommandsConfig } from "./command/config";
import { ConfigRules, fromConfig } from "./permission/evaluate";
import type { Ruleset } from "./permission/schema";
import { ModelOverrides } from "./provider/models";
import { SandboxFile, SandboxId, type SandboxSettings, sandboxSettings } from "./sandbox/settings";
import { describeIssues } from "./fn";
import { trustedProxies } from "./auth/client-address";
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from "./live/limits";
import { DEFAULT_PROVIDER_LIMITS, type ProviderLimits } from "./provider/limits";
import { DEFAULT_PROJECT_DISK_MB } from "./project/quota";
import { DEFAULT_SNAPSHOT_MB } from "./snapshot/snapshot";
import { DEFAULT_MAX_WORKSPACES, DEFAULT_SPARE_WORKSPACES } from "./workspace/scope";
import { parseServerKey } from "./secrets/seal";
import type { InstructionSettings } from "./instructions/sources";
import { LOG_LEVELS, type LogLevel } from "./log";
import { McpConfig, type McpSettings } from "./mcp/config";

/**
 * Parley's configuration: one optional JSON file (`parley.config.json`, or the path in
 * PARLEY_CONFIG) plus environment variables, which win. Validated once; a bad value
 * stops the start with a message naming it.
 */

const ModelRef = z.string().regex(/^[^/\s]+\/\S+$/, 'expected "provider/model"');
const StreamCap = z.number().int().min(1).max(100_000);
const SubagentDepth = z.number().int().min(0).max(10);
/** A size limit on a provider's answer: 1 KiB to 1 GiB. */
const SizeLimit = z.number().int().min(1024).max(1024 ** 3);
/** A time limit on a model call: 100 ms to a day. */
const TimeLimit = z.number().int().min(100).max(86_400_000);
const DiskMb = z.number().int().min(1).max(16_777_216);
/** Live workspaces one project may have at once. */
const WorkspaceCap = z.number().int().min(1).max(100_000);
const SpareCount = z.number().int().min(0).max(8);

export const ConfigFileSchema = z
  .object({
    dataDir: z.string().min(1).optional(),
    share: z.enum(["auto", "manual", "disabled"]).optional(),
    compaction: z.object({ auto: z.boolean().optional(), prune: z.boolean().optional() }).strict().optional(),
    model: ModelRef.optional(),
    smallModel: ModelRef.optional(),
    projectsRoot: z.string().min(1).optional(),
    defaultProject: z.string().min(1).optional(),
    /** Who may sign up once the first user has: "invite" (only invited emails) or "open". */
    signUp: z.enum(["invite", "open"]).optional(),
    /** Team/project permission rules, e.g. {"bash": "ask", "edit": {"*.env": "deny"}}. */
    permission: ConfigRules.optional(),
    /** Model catalog overrides: {"openai/gpt-4.1": {"limit": {...}, "cost": {...}}}. */
    models: ModelOverrides.optional(),
    retry: z.object({ maxAttempts: z.number().int().min(1).max(50).optional() }).strict().optional(),
    publicUrl: z.url().optional(),
    /** Reverse proxies in front of the server (addresses or CIDR ranges): only their X-Forwarded-For is believed. */
    trustedProxies: z.array(z.string().min(1)).optional(),
    /** How tool processes are confined: {"mode": "auto"|"off", "network": "none"|"allow", "limits": {...}, "uid": 65500, "gid": 65500}. */
    sandbox: SandboxFile.optional(),
    /** Agents of this server besides the built-in ones: {"reviewer": {"description": "…", "tools": ["read", "grep"]}}. */
    agents: AgentsConfig.optional(),
    /** Prompt commands of every team, as OpenCode's `command`: {"test": {"template": "Run the tests: $ARGUMENTS", "description": "…", "agent": "build", "model": "p/m", "subtask": false}}. */
    command: CommandsConfig.optional(),
    /** Subagents: {"maxDepth": 2} — how many levels of subagent sessions a root session may have below it. */
    subagents: z.object({ maxDepth: SubagentDepth.optional() }).strict().optional(),
    /** Streaming: a part's changes that come less than `windowMs` after its last update are sent together (0: each at once). */
    stream: z.object({ windowMs: z.number().int().min(0).max(1000).optional() }).strict().optional(),
    /** Caps on open live streams (SSE), per signed-in user, per client address, per share link and per share link from one address. */
    liveStreams: z
      .object({ perUser: StreamCap.optional(), perAddress: StreamCap.optional(), perShare: StreamCap.optional(), perAddressPerShare: StreamCap.optional() })
      .strict()
      .optional(),
    /** What a provider may send (server/provider/limits.ts): sizes, and the clocks of a step. */
    provider: z
      .object({
        maxEventChars: SizeLimit.optional(),
        maxBytesBeforeOutput: SizeLimit.optional(),
        maxAnswerBytes: SizeLimit.optional(),
        maxPartChars: SizeLimit.optional(),
        stepTimeoutMs: TimeLimit.optional(),
        idleTimeoutMs: TimeLimit.optional(),
      })
      .strict()
      .optional(),
    /** Remotes admins may clone from besides https://, ssh:// and git://: file:// URLs and paths of this server, http:// (credentials in clear). */
    git: z.object({ allowLocalRemotes: z.boolean().optional(), allowHttp: z.boolean().optional() }).strict().optional(),
    /** Instruction files for the agent besides the rule files (AGENTS.md…), as in OpenCode: paths and globs relative to the project, absolute paths inside it, and URLs (read only with `instructionUrls`). */
    instructions: z.array(z.string().min(1).max(4096)).max(100).optional(),
    /** Whether the server fetches the URLs among `instructions` (5 s each, 64 KB at most); off by default. */
    instructionUrls: z.boolean().optional(),
    /** The server's log: its level (server/log.ts; PARLEY_LOG_LEVEL wins). */
    log: z.object({ level: z.enum(LOG_LEVELS).optional() }).strict().optional(),
    /** Disk limits: a project's quota, and the new files one snapshot may store (MB). */
    /** Providers (SPEC §12): whether teams may use the operator's environment keys ("all") or only their own ("none"); whether a team's base URL may be http://; the catalog file that updates or extends the bundled model catalog. */
    providers: z
      .object({ serverKeys: z.enum(["all", "none"]).optional(), allowHttp: z.boolean().optional(), catalog: z.string().min(1).optional() })
      .strict()
      .optional(),
    /** Tool servers (MCP) of every team, as OpenCode's `mcp` block: {"docs": {"type": "remote", "url": "https://…", "headers": {"Authorization": "Bearer {env:DOCS_TOKEN}"}}}. */
    mcp: McpConfig.optional(),
    /** Tool servers: {"allowPrivateAddresses": true} lets remote servers be reached at loopback, link-local and private addresses (refused by default). */
    toolServers: z.object({ allowPrivateAddresses: z.boolean().optional() }).strict().optional(),
    limits: z.object({ projectDiskMb: DiskMb.optional(), snapshotMb: DiskMb.optional(), workspacesPerProject: WorkspaceCap.optional(), spareWorkspaces: SpareCount.optional() }).strict().optional(),
  })
  .strict();
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** An environment variable holding a number within `limit`. */
const envNumber = (limit: z.ZodNumber) => z.coerce.number().pipe(limit).optional();
/** An environment variable that is "true" or "false". */
const envFlag = z.enum(["true", "false"]).optional();

const EnvSchema = z.object({
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  PARLEY_CONFIG: z.string().optional(),
  PARLEY_DATA_DIR: z.string().min(1).optional(),
  PARLEY_SHARE: z.enum(["auto", "manual", "disabled"]).optional(),
  PARLEY_COMPACTION_AUTO: envFlag,
  PARLEY_COMPACTION_PRUNE: envFlag,
  PARLEY_MODEL: ModelRef.optional(),
  PARLEY_SMALL_MODEL: ModelRef.optional(),
  PARLEY_PROJECT_DIR: z.string().min(1).optional(),
  PARLEY_PROJECTS_ROOT: z.string().min(1).optional(),
  PARLEY_SIGNUP: z.enum(["invite", "open"]).optional(),
  PARLEY_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  PARLEY_AUTH_RATE_LIMIT: envFlag,
  PARLEY_SECRET_KEY: z.string().optional(),
  PARLEY_SECRET_KEY_PREVIOUS: z.string().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url().optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: z.url().optional(),
  GOOGLE_GENERATIVE_AI_API_KEY: z.string().min(1).optional(),
  GOOGLE_GENERATIVE_AI_BASE_URL: z.url().optional(),
  PARLEY_SERVER_KEYS: z.enum(["all", "none"]).optional(),
  PARLEY_PROVIDERS_ALLOW_HTTP: envFlag,
  PARLEY_CATALOG: z.string().min(1).optional(),
  PARLEY_RETRY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).optional(),
  PARLEY_PUBLIC_URL: z.url().optional(),
  PARLEY_TRUSTED_PROXIES: z.string().optional(),
  PARLEY_OFFLINE_TPS: z.coerce.number().min(0).max(100_000).optional(),
  PARLEY_SANDBOX: z.enum(["auto", "off"]).optional(),
  PARLEY_SANDBOX_NETWORK: z.enum(["none", "allow"]).optional(),
  PARLEY_SANDBOX_UID: envNumber(SandboxId),
  PARLEY_SANDBOX_GID: envNumber(SandboxId),
  PARLEY_STREAM_WINDOW_MS: z.coerce.number().int().min(0).max(1000).optional(),
  PARLEY_LIVE_STREAMS_PER_USER: envNumber(StreamCap),
  PARLEY_LIVE_STREAMS_PER_ADDRESS: envNumber(StreamCap),
  PARLEY_LIVE_STREAMS_PER_SHARE: envNumber(StreamCap),
  PARLEY_LIVE_STREAMS_PER_ADDRESS_PER_SHARE: envNumber(StreamCap),
  PARLEY_SUBAGENT_MAX_DEPTH: envNumber(SubagentDepth),
  PARLEY_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).optional(),
  PARLEY_PROVIDER_MAX_EVENT_CHARS: envNumber(SizeLimit),
  PARLEY_PROVIDER_MAX_BYTES_BEFORE_OUTPUT: envNumber(SizeLimit),
  PARLEY_PROVIDER_MAX_ANSWER_BYTES: envNumber(SizeLimit),
  PARLEY_PROVIDER_MAX_PART_CHARS: envNumber(SizeLimit),
  PARLEY_PROVIDER_STEP_TIMEOUT_MS: envNumber(TimeLimit),
  PARLEY_PROVIDER_IDLE_TIMEOUT_MS: envNumber(TimeLimit),
  PARLEY_PROJECT_DISK_MB: envNumber(DiskMb),
  PARLEY_SNAPSHOT_MAX_MB: envNumber(DiskMb),
  PARLEY_WORKSPACES_PER_PROJECT: envNumber(WorkspaceCap),
  PARLEY_SPARE_WORKSPACES: envNumber(SpareCount),
  PARLEY_GIT_ALLOW_LOCAL_REMOTES: envFlag,
  PARLEY_GIT_ALLOW_HTTP: envFlag,
  PARLEY_INSTRUCTION_URLS: envFlag,
  PARLEY_LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
  PARLEY_MCP_ALLOW_PRIVATE: envFlag,
});
type Env = z.infer<typeof EnvSchema>;

export interface Config {
  databaseUrl: string | undefined;
  dataDir: string;
  share: "auto" | "manual" | "disabled";
  compaction: { auto: boolean; prune: boolean };
  model: string | undefined;
  smallModel: string | undefined;
  /** Directory of the project the first team starts with (a sample project when missing). */
  defaultProject: string;
  /**
   * Team admins register project directories only inside this one. (The default project
   * is registered by the server itself and may lie elsewhere.)
   */
  projectsRoot: string;
  /** After the first user: "invite" (sign-up needs an invitation) or "open" (anyone, with a team of their own). */
  signUp: "invite" | "open";
  /** Key that signs sign-in cookies; when unset, one is made and kept in the database. */
  authSecret: string | undefined;
  /** Rate limits on sign-in and sign-up (better-auth's); undefined: on in production builds only. */
  authRateLimit: boolean | undefined;
  /**
   * The key team secrets are sealed under (PARLEY_SECRET_KEY; when unset, the key file
   * `<dataDir>/secret-key`, made on first use) and old keys that still open them
   * (PARLEY_SECRET_KEY_PREVIOUS) — server/secrets/seal.ts.
   */
  secretKeys: { current: Buffer | undefined; previous: Buffer[] };
  openai: { apiKey: string | undefined; baseUrl: string | undefined };
  anthropic: { apiKey: string | undefined; baseUrl: string | undefined };
  google: { apiKey: string | undefined; baseUrl: string | undefined };
  /**
   * Providers per team (server/provider/team.ts): `serverKeys` "all" lets every team use
   * the keys above when it has none of its own, "none" only its own; `allowHttp` lets a
   * team's base URL be http:// (a local server); `catalog` is a JSON file of model entries
   * (as `models`) read again whenever it changes, over the bundled catalog.
   */
  providers: { serverKeys: "all" | "none"; allowHttp: boolean; catalog: string | undefined };
  permission: Ruleset;
  models: ModelOverrides | undefined;
  retry: { maxAttempts: number };
  publicUrl: string | undefined;
  /**
   * Reverse proxies whose X-Forwarded-For is believed (addresses or CIDR ranges); without
   * any, a client is the address of the socket it connected from.
   */
  trustedProxies: string[];
  /** Pace of the built-in offline model (tokens per second; 0 = no delay). */
  offline: { tokensPerSecond?: number };
  /** How tool processes are confined. */
  sandbox: SandboxSettings;
  /** Agents the configuration adds. */
  agents: AgentsConfig;
  /** Prompt commands the configuration adds (`command`). */
  commands: CommandsConfig;
  /** Subagent sessions nest at most `maxDepth` levels below a root session. */
  subagents: { maxDepth: number };
  /** Coalescing window of a part's streamed changes (ms); undefined: the default (16). */
  stream: { windowMs: number | undefined };
  /** Caps on open live streams (SSE): over one, a new stream is refused with 429. */
  liveStreams: StreamLimits;
  /** On SIGTERM: how long running turns may go on before they are stopped and handed over (server/shutdown.ts). */
  shutdown: { graceMs: number };
  /** What a provider may send: sizes, and the clocks of a step (server/provider/limits.ts). */
  provider: ProviderLimits;
  /** A project's disk quota and the new files one snapshot may store (MB). */
  limits: { projectDiskMb: number; snapshotMb: number; workspacesPerProject: number; spareWorkspaces: number };
  /** Remotes admins may clone from besides https/ssh/git: file:// and local paths, http://. */
  git: { allowLocalRemotes: boolean; allowHttp: boolean };
  /** The configured instruction files and URLs, and whether URLs are fetched (server/instructions). */
  instructions: InstructionSettings;
  /** The server log's level (server/log.ts). */
  logLevel: LogLevel;
  /** The configuration's tool servers (`mcp`) and whether remote ones may be at private addresses (server/mcp). */
  mcp: McpSettings;
}

/** How long a stopping server lets running turns finish by default (ms). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export class ConfigError extends Error {
  override name = "ConfigError";
}

function issues(error: z.ZodError): string {
  return describeIssues(error.issues, "(root)");
}

export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const parsedEnv = EnvSchema.safeParse(env);
  if (!parsedEnv.success) throw new ConfigError(`invalid environment: ${issues(parsedEnv.error)}`);
  const e = parsedEnv.data;
  const fromFile = readConfigFile(e.PARLEY_CONFIG, cwd);
  const dataDir = path.resolve(cwd, e.PARLEY_DATA_DIR ?? fromFile.dataDir ?? ".data");
  const flag = (value: "true" | "false" | undefined, fallback: boolean) =>
    value === undefined ? fallback : value === "true";
  return {
    databaseUrl: e.DATABASE_URL,
    dataDir,
    share: e.PARLEY_SHARE ?? fromFile.share ?? "manual",
    compaction: {
      auto: flag(e.PARLEY_COMPACTION_AUTO, fromFile.compaction?.auto ?? true),
      prune: flag(e.PARLEY_COMPACTION_PRUNE, fromFile.compaction?.prune ?? true),
    },
    model: e.PARLEY_MODEL ?? fromFile.model,
    smallModel: e.PARLEY_SMALL_MODEL ?? fromFile.smallModel,
    defaultProject: path.resolve(
      cwd,
      e.PARLEY_PROJECT_DIR ?? fromFile.defaultProject ?? path.join(dataDir, "projects", "default"),
    ),
    projectsRoot: path.resolve(cwd, e.PARLEY_PROJECTS_ROOT ?? fromFile.projectsRoot ?? path.join(dataDir, "projects")),
    signUp: e.PARLEY_SIGNUP ?? fromFile.signUp ?? "invite",
    authSecret: e.PARLEY_AUTH_SECRET,
    authRateLimit: e.PARLEY_AUTH_RATE_LIMIT === undefined ? undefined : e.PARLEY_AUTH_RATE_LIMIT === "true",
    secretKeys: secretKeys(e.PARLEY_SECRET_KEY, e.PARLEY_SECRET_KEY_PREVIOUS),
    openai: { apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL },
    anthropic: { apiKey: e.ANTHROPIC_API_KEY, baseUrl: e.ANTHROPIC_BASE_URL },
    google: { apiKey: e.GOOGLE_GENERATIVE_AI_API_KEY, baseUrl: e.GOOGLE_GENERATIVE_AI_BASE_URL },
    providers: {
      serverKeys: e.PARLEY_SERVER_KEYS ?? fromFile.providers?.serverKeys ?? "all",
      allowHttp: flag(e.PARLEY_PROVIDERS_ALLOW_HTTP, fromFile.providers?.allowHttp ?? false),
      catalog: optionalPath(cwd, e.PARLEY_CATALOG ?? fromFile.providers?.catalog),
    },
    permission: fromConfig(fromFile.permission),
    models: fromFile.models,
    retry: { maxAttempts: e.PARLEY_RETRY_MAX_ATTEMPTS ?? fromFile.retry?.maxAttempts ?? 8 },
    publicUrl: e.PARLEY_PUBLIC_URL ?? fromFile.publicUrl,
    trustedProxies: proxies(e.PARLEY_TRUSTED_PROXIES, fromFile.trustedProxies),
    offline: e.PARLEY_OFFLINE_TPS === undefined ? {} : { tokensPerSecond: e.PARLEY_OFFLINE_TPS },
    sandbox: sandboxSettings(fromFile.sandbox, {
      mode: e.PARLEY_SANDBOX,
      network: e.PARLEY_SANDBOX_NETWORK,
      uid: e.PARLEY_SANDBOX_UID,
      gid: e.PARLEY_SANDBOX_GID,
    }),
    agents: fromFile.agents ?? {},
    commands: fromFile.command ?? {},
    subagents: { maxDepth: e.PARLEY_SUBAGENT_MAX_DEPTH ?? fromFile.subagents?.maxDepth ?? DEFAULT_SUBAGENT_MAX_DEPTH },
    stream: { windowMs: e.PARLEY_STREAM_WINDOW_MS ?? fromFile.stream?.windowMs },
    ...capsFrom(e, fromFile),
    git: {
      allowLocalRemotes: flag(e.PARLEY_GIT_ALLOW_LOCAL_REMOTES, fromFile.git?.allowLocalRemotes ?? false),
      allowHttp: flag(e.PARLEY_GIT_ALLOW_HTTP, fromFile.git?.allowHttp ?? false),
    },
    instructions: { paths: fromFile.instructions ?? [], allowUrls: flag(e.PARLEY_INSTRUCTION_URLS, fromFile.instructionUrls ?? false) },
    logLevel: e.PARLEY_LOG_LEVEL ?? fromFile.log?.level ?? "info",
    mcp: { servers: fromFile.mcp ?? {}, allowPrivateAddresses: flag(e.PARLEY_MCP_ALLOW_PRIVATE, fromFile.toolServers?.allowPrivateAddresses ?? false) },
  };
}

/** The configuration file (PARLEY_CONFIG, else ./parley.config.json when present), validated; {} without one. */
function readConfigFile(named: string | undefined, cwd: string): ConfigFile {
  const file = path.resolve(cwd, named ?? "parley.config.json");
  // Read at run time from the working directory: nothing for the build to trace.
  if (!existsSync(/*turbopackIgnore: true*/ file)) {
    if (named) throw new ConfigError(`PARLEY_CONFIG points at ${file}, which does not exist`);
    return {};
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(/*turbopackIgnore: true*/ file, "utf8"));
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = ConfigFileSchema.safeParse(json);
  if (!parsed.success) throw new ConfigError(`invalid ${file}: ${issues(parsed.error)}`);
  return parsed.data;
}

/** The caps: live streams, the shutdown's grace, what a provider may send, disk and workspaces. */
function capsFrom(e: Env, fromFile: ConfigFile): Pick<Config, "liveStreams" | "shutdown" | "provider" | "limits"> {
  return {
      liveStreams: {
        perUser: e.PARLEY_LIVE_STREAMS_PER_USER ?? fromFile.liveStreams?.perUser ?? DEFAULT_STREAM_LIMITS.perUser,
        perAddress: e.PARLEY_LIVE_STREAMS_PER_ADDRESS ?? fromFile.liveStreams?.perAddress ?? DEFAULT_STREAM_LIMITS.perAddress,
        perShare: e.PARLEY_LIVE_STREAMS_PER_SHARE ?? fromFile.liveStreams?.perShare ?? DEFAULT_STREAM_LIMITS.perShare,
        perAddressPerShare: e.PARLEY_LIVE_STREAMS_PER_ADDRESS_PER_SHARE ?? fromFile.liveStreams?.perAddressPerShare ?? DEFAULT_STREAM_LIMITS.perAddressPerShare,
      },
      shutdown: { graceMs: e.PARLEY_SHUTDOWN_GRACE_MS ?? DEFAULT_SHUTDOWN_GRACE_MS },
      provider: {
        maxEventChars: e.PARLEY_PROVIDER_MAX_EVENT_CHARS ?? fromFile.provider?.maxEventChars ?? DEFAULT_PROVIDER_LIMITS.maxEventChars,
        maxBytesBeforeOutput: e.PARLEY_PROVIDER_MAX_BYTES_BEFORE_OUTPUT ?? fromFile.provider?.maxBytesBeforeOutput ?? DEFAULT_PROVIDER_LIMITS.maxBytesBeforeOutput,
        maxAnswerBytes: e.PARLEY_PROVIDER_MAX_ANSWER_BYTES ?? fromFile.provider?.maxAnswerBytes ?? DEFAULT_PROVIDER_LIMITS.maxAnswerBytes,
        maxPartChars: e.PARLEY_PROVIDER_MAX_PART_CHARS ?? fromFile.provider?.maxPartChars ?? DEFAULT_PROVIDER_LIMITS.maxPartChars,
        stepTimeoutMs: e.PARLEY_PROVIDER_STEP_TIMEOUT_MS ?? fromFile.provider?.stepTimeoutMs ?? DEFAULT_PROVIDER_LIMITS.stepTimeoutMs,
        idleTimeoutMs: e.PARLEY_PROVIDER_IDLE_TIMEOUT_MS ?? fromFile.provider?.idleTimeoutMs ?? DEFAULT_PROVIDER_LIMITS.idleTimeoutMs,
      },
      limits: {
        projectDiskMb: e.PARLEY_PROJECT_DISK_MB ?? fromFile.limits?.projectDiskMb ?? DEFAULT_PROJECT_DISK_MB,
        snapshotMb: e.PARLEY_SNAPSHOT_MAX_MB ?? fromFile.limits?.snapshotMb ?? DEFAULT_SNAPSHOT_MB,
        workspacesPerProject: e.PARLEY_WORKSPACES_PER_PROJECT ?? fromFile.limits?.workspacesPerProject ?? DEFAULT_MAX_WORKSPACES,
        spareWorkspaces: e.PARLEY_SPARE_WORKSPACES ?? fromFile.limits?.spareWorkspaces ?? DEFAULT_SPARE_WORKSPACES,
      },
  };
}

function optionalPath(cwd: string, value: string | undefined): string | undefined {
  return value === undefined ? undefined : path.resolve(cwd, value);
}

/** PARLEY_SECRET_KEY and PARLEY_SECRET_KEY_PREVIOUS (comma-separated), each parsed; the message never holds a key. */
function secretKeys(current: string | undefined, previous: string | undefined): Config["secretKeys"] {
  const parse = (text: string, label: string) => {
    try {
      return parseServerKey(text, label);
    } catch (error) {
      throw new ConfigError(`invalid ${label}: ${(error as Error).message}`, { cause: error });
    }
  };
  const old = (previous ?? "").split(",").map((entry) => entry.trim()).filter(Boolean);
  return {
    current: current?.trim() ? parse(current, "PARLEY_SECRET_KEY") : undefined,
    previous: old.map((entry, index) => parse(entry, `PARLEY_SECRET_KEY_PREVIOUS (entry ${index + 1})`)),
  };
}

/** PARLEY_TRUSTED_PROXIES (comma-separated) or the file's list, each entry checked. */
function proxies(fromEnv: string | undefined, fromFile: string[] | undefined): string[] {
  const entries = fromEnv === undefined ? (fromFile ?? []) : fromEnv.split(",").map((entry) => entry.trim()).filter(Boolean);
  try {
    trustedProxies(entries);
  } catch (error) {
    throw new ConfigError(`invalid ${fromEnv === undefined ? "trustedProxies" : "PARLEY_TRUSTED_PROXIES"}: ${(error as Error).message}`, { cause: error });
  }
  return entries;
}

let cached: Config | undefined;
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}
