import { isIP } from "node:net";
import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { type Db, Prisma } from "../db/client";
import { ParleyError } from "../errors";
import { parse } from "../fn";
import * as Id from "../id";
import { Secrets } from "../secrets";
import type { Acting } from "../actor";
import type { Clock } from "../clock";
import { isPrivateAddress } from "./address";
import { type ConfigServer, type McpSettings, DEFAULT_TIMEOUT_MS, EnvRef, HeaderRef, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS, ServerName, ServerUrl } from "./config";

/**
 * A team's tool servers (SPEC §17): the server configuration's (`mcp`, for every team),
 * the team's and each project's, kept in PostgreSQL. Owners and admins add, change and
 * remove them (a tool server acts with the team's secrets); every member sees which
 * servers and tools exist. A header's value is a team secret's, named here — never a value.
 */

export type Source = "config" | "team" | "project";

/** One server as a team's sessions use it. */
export interface Spec {
  /** "config:<name>" or the ToolServer row's id: the key of its cached tool list and its connection. */
  key: string;
  name: string;
  source: Source;
  /** "remote": over HTTP at `url`; "local": `command` run in the sandbox. */
  type: "remote" | "local";
  url: string;
  /** Header values: literal (the configuration's, `{env:NAME}` read) or a team secret's. */
  headers: Array<{ name: string; value: string } | { name: string; secret: string; prefix?: string }>;
  /** A local server's command, environment (values as headers'), and what it may reach. */
  command: string[];
  environment: Array<{ name: string; value: string } | { name: string; secret: string }>;
  writable: boolean;
  network: boolean;
  /** A remote server that authorizes with OAuth ("Connect" on the Team page). */
  oauth: boolean;
  /** With OAuth: each member connects their own account (else one connection for the team, by an owner or admin). */
  oauthPerMember: boolean;
  enabled: boolean;
  /** Tools the agent gets (server's names); undefined: all. */
  allow?: string[];
  timeoutMs: number;
  /** When it was last changed (ms): a tool list cached before is read again. */
  version: number;
}

const Allow = z.array(z.string().min(1).max(200)).max(500);
const Command = z.array(z.string().min(1).max(4096)).min(1).max(100);

export const Scope = z.object({ projectId: Id.schema("project").optional() });
export const SaveInput = Scope.extend({
  /** The server to change; absent: a new one. */
  id: Id.schema("toolServer").optional(),
  name: ServerName,
  /** "remote" (a URL) or "local" (a command run in the sandbox). */
  type: z.enum(["remote", "local"]).default("remote"),
  url: ServerUrl.optional(),
  headers: z.array(HeaderRef).max(20).default([]),
  command: Command.optional(),
  environment: z.array(EnvRef).max(50).default([]),
  /** A local server may write to the project / use the network. */
  writable: z.boolean().default(false),
  network: z.boolean().default(false),
  /** A remote server that authorizes with OAuth (connected from the Team page). */
  oauth: z.boolean().default(false),
  /** With OAuth: each member connects with their own account. */
  oauthPerMember: z.boolean().default(false),
  enabled: z.boolean().default(true),
  allow: Allow.nullable().default(null),
  timeoutMs: z.number().int().min(MIN_TIMEOUT_MS).max(MAX_TIMEOUT_MS).nullable().default(null),
});
export type SaveInput = z.input<typeof SaveInput>;
export const RemoveInput = z.object({ id: Id.schema("toolServer") });

const Headers = z.array(HeaderRef);
const Environment = z.array(EnvRef);

/** `{env:NAME}` in a configuration value, as OpenCode reads it: the server's environment variable. */
export function substituteEnv(value: string, env: Record<string, string | undefined> = process.env): string {
  return value.replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_all, name: string) => env[name] ?? "");
}

function configSpec(name: string, server: ConfigServer): Spec {
  const base = { key: `config:${name}`, name, source: "config" as const, enabled: server.enabled ?? true, timeoutMs: server.timeout ?? DEFAULT_TIMEOUT_MS, version: 0, writable: false, network: false, oauth: false, oauthPerMember: false };
  if (server.type === "local") {
    const environment = Object.entries(server.environment ?? {}).map(([variable, value]) => ({ name: variable, value: substituteEnv(value) }));
    return { ...base, type: "local", url: "", headers: [], command: server.command, environment };
  }
  const headers = Object.entries(server.headers ?? {}).map(([header, value]) => ({ name: header, value: substituteEnv(value) }));
  return { ...base, type: "remote", url: server.url, headers, command: [], environment: [], oauth: typeof server.oauth === "object" };
}

type Row = Prisma.ToolServerGetPayload<object>;

function rowSpec(row: Row): Spec {
  const allow = Allow.safeParse(row.allow);
  const headers = Headers.safeParse(row.headers ?? []);
  const environment = Environment.safeParse(row.environment ?? []);
  const command = row.type === "local" ? Command.safeParse(row.command) : Command.safeParse(["-"]);
  if (!headers.success || !environment.success || !command.success) throw new ParleyError("CORRUPT", `the settings of tool server ${row.name} cannot be read`);
  return {
    key: row.id,
    name: row.name,
    source: row.scope === "team" ? "team" : "project",
    type: row.type === "local" ? "local" : "remote",
    url: row.url ?? "",
    headers: headers.data,
    command: row.type === "local" ? command.data : [],
    environment: environment.data,
    writable: row.writable,
    network: row.network,
    oauth: row.oauth,
    oauthPerMember: row.oauth && row.oauthPerMember,
    enabled: row.enabled,
    ...(allow.success ? { allow: allow.data } : {}),
    timeoutMs: row.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    version: row.updatedAt.getTime(),
  };
}

/**
 * The remote servers a project's sessions use: the configuration's, then the team's, then
 * the project's — a later one of the same name replaces an earlier one.
 */
export async function specs(db: Db, settings: McpSettings, teamId: string, projectId: string | undefined): Promise<Spec[]> {
  const rows = await db.toolServer.findMany({ where: { teamId, scope: { in: ["team", ...(projectId ? [projectId] : [])] } }, orderBy: { createdAt: "asc" } });
  const byName = new Map<string, Spec>();
  for (const [name, server] of Object.entries(settings.servers)) byName.set(name, configSpec(name, server));
  for (const row of rows.filter((r) => r.scope === "team")) byName.set(row.name, rowSpec(row));
  for (const row of rows.filter((r) => r.scope !== "team")) byName.set(row.name, rowSpec(row));
  return [...byName.values()];
}

/** Refuses a URL at a loopback, link-local or private address literal (host names are checked when they are resolved, at each connection). */
export function checkUrl(url: string, allowPrivate: boolean): void {
  const parsed = new URL(url);
  if (parsed.username !== "" || parsed.password !== "") throw ParleyError.invalid("The URL holds credentials: put them in a team secret and send it as a header.");
  if (allowPrivate) return;
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if ((isIP(host) !== 0 && isPrivateAddress(host)) || host === "localhost" || host.endsWith(".localhost")) {
    throw ParleyError.invalid(`${parsed.host} is a loopback, link-local or private address, which tool servers may not use on this server (the operator's toolServers.allowPrivateAddresses setting).`);
  }
  if (parsed.protocol === "http:") throw ParleyError.invalid("Remote tool servers are reached over https:// (their headers carry secrets).");
}

async function ownProject(ctx: Acting, projectId: string): Promise<void> {
  const row = await ctx.db.project.findUnique({ where: { id: projectId }, select: { teamId: true } });
  if (!row || row.teamId !== ctx.actor.teamId) throw ParleyError.notFound("project", projectId);
}

/** What save and remove act with: the actor's team, and its tool servers to forget what they kept. */
type Changing = Acting & { clock: Clock; settings: { mcp?: McpSettings | undefined }; mcp: { forget(teamId: string): void } };

/** Adds or changes a tool server of the team or of one of its projects (owners and admins). */
export async function save(ctx: Changing, input: SaveInput): Promise<{ id: string }> {
  const value = parse(SaveInput, input);
  await requireRole(ctx, ADMIN_ROLES, "add or change tool servers");
  if (value.projectId) await ownProject(ctx, value.projectId);
  if (value.type === "remote") {
    if (!value.url) throw ParleyError.invalid("A remote tool server needs its URL.");
    checkUrl(value.url, ctx.settings.mcp?.allowPrivateAddresses ?? false);
  } else if (!value.command) throw ParleyError.invalid("A local tool server needs its command.");
  for (const ref of [...value.headers, ...value.environment]) {
    const kind = await Secrets.kindOf(ctx, ctx.actor.teamId, ref.secret);
    if (!kind) throw ParleyError.invalid(`The team has no secret named ${ref.secret}.`);
    if (kind !== "header") throw ParleyError.invalid(`A tool server's value comes from a secret of kind "header": ${ref.secret} is a ${kind}.`);
  }
  const scope = value.projectId ?? "team";
  const local = value.type === "local";
  const data = {
    name: value.name,
    type: value.type,
    url: local ? null : (value.url ?? null),
    command: local && value.command ? value.command : Prisma.DbNull,
    environment: local ? value.environment : Prisma.DbNull,
    writable: local && value.writable,
    network: local && value.network,
    oauth: !local && value.oauth,
    oauthPerMember: !local && value.oauth && value.oauthPerMember,
    headers: local ? [] : value.headers,
    enabled: value.enabled,
    allow: value.allow ?? Prisma.DbNull,
    timeoutMs: value.timeoutMs,
    updatedAt: new Date(ctx.clock.now()),
    updatedById: ctx.actor.userId,
  };
  try {
    if (value.id) {
      const { count } = await ctx.db.toolServer.updateMany({ where: { id: value.id, teamId: ctx.actor.teamId, scope }, data });
      if (count === 0) throw ParleyError.notFound("Tool server", value.id);
      ctx.mcp.forget(ctx.actor.teamId);
      return { id: value.id };
    }
    const id = Id.ascending("toolServer");
    await ctx.db.toolServer.create({ data: { ...data, id, teamId: ctx.actor.teamId, scope, projectId: value.projectId ?? null } });
    ctx.mcp.forget(ctx.actor.teamId);
    return { id };
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new ParleyError("CONFLICT", `There is already a tool server named ${value.name} here.`);
    throw error;
  }
}

/** Removes a tool server of the team (owners and admins), with its cached tools. */
export async function remove(ctx: Changing, input: z.input<typeof RemoveInput>): Promise<void> {
  const { id } = parse(RemoveInput, input);
  await requireRole(ctx, ADMIN_ROLES, "remove tool servers");
  const { count } = await ctx.db.toolServer.deleteMany({ where: { id, teamId: ctx.actor.teamId } });
  if (count === 0) throw ParleyError.notFound("Tool server", id);
  ctx.mcp.forget(ctx.actor.teamId);
  await ctx.db.toolServerTools.deleteMany({ where: { teamId: ctx.actor.teamId, server: id } });
}

/** One server as the Team page shows it: never a header's value (the configuration's are named only). */
export interface Listed {
  id: string | null;
  name: string;
  source: Source;
  type: "remote" | "local";
  url: string;
  headers: Array<{ name: string; secret?: string; prefix?: string }>;
  command: string[];
  /** Variable names, and the secret each comes from (never a value). */
  environment: Array<{ name: string; secret?: string }>;
  writable: boolean;
  network: boolean;
  oauth: boolean;
  oauthPerMember: boolean;
  enabled: boolean;
  allow: string[] | null;
  timeoutMs: number;
}

export function listed(spec: Spec): Listed {
  return {
    id: spec.source === "config" ? null : spec.key,
    name: spec.name,
    source: spec.source,
    type: spec.type,
    url: spec.url,
    headers: spec.headers.map((h) => ("secret" in h ? { name: h.name, secret: h.secret, ...(h.prefix ? { prefix: h.prefix } : {}) } : { name: h.name })),
    command: spec.command,
    environment: spec.environment.map((e) => ("secret" in e ? { name: e.name, secret: e.secret } : { name: e.name })),
    writable: spec.writable,
    network: spec.network,
    oauth: spec.oauth,
    oauthPerMember: spec.oauthPerMember,
    enabled: spec.enabled,
    allow: spec.allow ?? null,
    timeoutMs: spec.timeoutMs,
  };
}
