import { z } from "zod";
import { SECRET_NAME_PATTERN } from "../../lib/secrets";

/**
 * How tool servers (MCP) are described: the server configuration's `mcp` block, as
 * OpenCode's `opencode.json` writes it (pasted unchanged), and the servers owners and
 * admins add to a team or a project, whose header and environment values name team
 * secrets (never a value).
 */

/** OpenCode's OAuth settings of a remote server (`false`: never try OAuth). */
const OAuthConfig = z.union([z.literal(false), z.object({ clientId: z.string().optional(), clientSecret: z.string().optional(), scope: z.string().optional() }).strict()]);

/** One entry of OpenCode's `mcp` block. */
export const ConfigServer = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("remote"),
      url: z.url({ protocol: /^https?$/ }),
      headers: z.record(z.string().min(1), z.string()).optional(),
      oauth: OAuthConfig.optional(),
      enabled: z.boolean().optional(),
      timeout: z.number().int().positive().max(3_600_000).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("local"),
      command: z.array(z.string().min(1)).min(1),
      environment: z.record(z.string().min(1), z.string()).optional(),
      enabled: z.boolean().optional(),
      timeout: z.number().int().positive().max(3_600_000).optional(),
    })
    .strict(),
]);
export type ConfigServer = z.infer<typeof ConfigServer>;
export const McpConfig = z.record(z.string().min(1).max(64), ConfigServer);
export type McpConfig = z.infer<typeof McpConfig>;

/** The operator's settings of tool servers (`toolServers` in the configuration). */
export interface McpSettings {
  /** The configuration's servers, for every team. */
  servers: McpConfig;
  /** Remote servers at loopback, link-local and private addresses are allowed (default: refused). */
  allowPrivateAddresses: boolean;
}

export const NO_MCP_SETTINGS: McpSettings = { servers: {}, allowPrivateAddresses: false };

/** A name as a tool name holds it: letters, digits, '_' and '-' (others become '_'), as OpenCode does. */
export function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** Providers take tool names of at most 64 characters. */
export const MAX_TOOL_NAME = 64;

/** The name the model calls a server's tool by, which is also its permission key: `<server>_<tool>`. */
export function toolName(server: string, tool: string): string {
  return `${sanitize(server)}_${sanitize(tool)}`.slice(0, MAX_TOOL_NAME);
}

/** A server's name as owners and admins give it: the prefix of its tools. */
export const ServerName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, "A tool server's name is 1–32 characters: lower-case letters, digits or '-', starting with a letter or digit.");

const SecretRef = z.string().regex(new RegExp(`^${SECRET_NAME_PATTERN}$`), "Name a team secret.");
const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, "A header name is a token (letters, digits, '-'…).");
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, "An environment variable's name is letters, digits and '_'.");

/** A header whose value is a team secret's, after an optional fixed prefix ("Bearer "). */
export const HeaderRef = z.object({ name: HeaderName, secret: SecretRef, prefix: z.string().max(64).regex(/^[\x20-\x7e]*$/, "A prefix is printable ASCII.").optional() }).strict();
export type HeaderRef = z.infer<typeof HeaderRef>;
/** An environment variable of a local server, its value a team secret's. */
export const EnvRef = z.object({ name: EnvName, secret: SecretRef }).strict();
export type EnvRef = z.infer<typeof EnvRef>;

/** Remote servers over https (http only where private addresses are allowed: checked on save). */
export const ServerUrl = z.url({ protocol: /^https?$/ }).max(2048);

/** Shortest and longest time one call may take (ms). */
export const MIN_TIMEOUT_MS = 1_000;
export const MAX_TIMEOUT_MS = 600_000;
export const DEFAULT_TIMEOUT_MS = 60_000;
