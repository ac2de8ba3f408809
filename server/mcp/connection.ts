import { type MCPClient, MCPClientError, MCPClientOAuthError, type OAuthClientProvider, UnauthorizedError, createMCPClient } from "@ai-sdk/mcp";
import { type Redact, redactor } from "../secrets/redact";
import { cancellingFetch, guardedFetch } from "./fetch";
import { logger } from "../log";

const log = logger("mcp");

/**
 * One connection to a remote tool server for one team on this instance: opened at its
 * first use (Streamable HTTP; the older SSE transport when the server does not speak it),
 * shared by every session of the team, closed after `idleMs` without use, and opened again
 * by the next use after a failure. Its status is what the Team page shows. No header value
 * ever appears in a status or an error: every message goes through the redactor of the
 * connection's header values.
 */

export type State = "idle" | "connecting" | "connected" | "failed" | "unauthorized";

export interface Status {
  state: State;
  /** Why the last attempt or call failed (redacted). */
  error?: string;
  /** When the state last changed (ms). */
  since: number;
}

export interface ToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface Listing {
  tools: ToolInfo[];
  instructions?: string;
}

export interface ConnectionOptions {
  /** Makes a client: a remote server's (remoteClient), or a local one's process (local.ts). */
  open: () => Promise<MCPClient>;
  /** Values that must never appear in a status or an error (its headers', its environment's). */
  secrets: string[];
  idleMs: number;
  /** How long listing may take (ms); opening (OAuth refresh and initialisation included) may take three times as long. */
  connectTimeoutMs: number;
  /** After a failed start, how long before the next attempt (ms), doubling with each failure up to 30 s; 0: at once. */
  backoffMs?: number;
  /** What a failure that needs (new) authorization becomes (oauth.ts NeedsConnectError); absent: no OAuth. */
  needsConnect?: () => Error;
  now: () => number;
}

export interface RemoteOptions {
  url: string;
  headers: Record<string, string>;
  allowPrivate: boolean;
  maxResponseBytes: number;
  connectTimeoutMs: number;
  onError: (error: unknown) => void;
  /** OAuth: the stored client and tokens (oauth.ts). */
  authProvider?: OAuthClientProvider;
}

function openRemote(options: RemoteOptions, type: "http" | "sse"): Promise<MCPClient> {
  const fetch = cancellingFetch(guardedFetch({ allowPrivate: options.allowPrivate, maxResponseBytes: options.maxResponseBytes, headersTimeoutMs: options.connectTimeoutMs }));
  return createMCPClient({
    transport: { type, url: options.url, headers: options.headers, fetch, redirect: "error", ...(options.authProvider ? { authProvider: options.authProvider } : {}) },
    clientName: "parley",
    initializationOptions: { timeout: options.connectTimeoutMs },
    onUncaughtError: options.onError,
  });
}

/** A remote server's client: Streamable HTTP, or the older SSE transport for a server that answers its POST with 404 or 405. */
export async function remoteClient(options: RemoteOptions): Promise<MCPClient> {
  try {
    return await openRemote(options, "http");
  } catch (error) {
    if (error instanceof MCPClientError && (error.statusCode === 404 || error.statusCode === 405)) return openRemote(options, "sse");
    throw error;
  }
}

/** How long closing a connection may take before it is left (ms). */
export const CLOSE_WAIT_MS = 3_000;

/** Opening a connection may take this many times its `connectTimeoutMs` (an OAuth refresh, then the initialisation). */
export const OPEN_TIMEOUT_FACTOR = 3;

/** Longest wait between two starts of a server that keeps failing (ms). */
const MAX_BACKOFF_MS = 30_000;

/** The failure of a call the connection cannot have delivered (refused, or its MCP session gone): sent again once on a new connection. */
function undelivered(error: unknown): boolean {
  if (error instanceof MCPClientError && error.statusCode === 404) return true;
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if ("code" in cause && cause.code === "ECONNREFUSED") return true;
  }
  return false;
}

/** Whether a failure means the server wants (new) authorization. */
function unauthorized(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 6; cause = cause.cause, depth++) {
    if (cause instanceof UnauthorizedError || cause instanceof MCPClientOAuthError || cause.name === "NeedsConnectError" || cause.name === "UnauthorizedError") return true;
    if (cause instanceof MCPClientError && cause.statusCode === 401) return true;
  }
  return false;
}

function describe(error: unknown): string {
  const parts: string[] = [];
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth++) if (!parts.includes(cause.message)) parts.push(cause.message);
  return parts.join(": ") || String(error);
}

export class Connection {
  private client: Promise<MCPClient> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private users = 0;
  private failures = 0;
  private retryAt = 0;
  readonly redact: Redact;
  status: Status;

  constructor(private readonly options: ConnectionOptions) {
    this.redact = redactor(options.secrets);
    this.status = { state: "idle", since: options.now() };
  }

  private set(state: State, error?: unknown): void {
    this.status = { state, since: this.options.now(), ...(error === undefined ? {} : { error: this.redact(describe(error)) }) };
  }

  /** Records an error the client met outside a call (its stream broke): the status says so. */
  failed(error: unknown): void {
    this.set("failed", error);
  }

  private connect(): Promise<MCPClient> {
    const wait = this.retryAt - this.options.now();
    if (wait > 0) return Promise.reject(new Error(`${this.status.error ?? "the tool server failed"} (next attempt in ${Math.ceil(wait / 1000)} s)`));
    this.set("connecting");
    const opening = this.bounded(this.options.open()).then(
      (client) => {
        this.failures = 0;
        this.set("connected");
        return client;
      },
      (error: unknown) => {
        if (this.client === opening) this.client = undefined;
        const connect = this.options.needsConnect && unauthorized(error) ? this.options.needsConnect() : undefined;
        if (connect) {
          this.set("unauthorized", connect);
          throw connect;
        }
        this.set("failed", error);
        this.backOff();
        throw new Error(this.status.error ?? "the tool server could not be reached");
      },
    );
    this.client = opening;
    return opening;
  }

  /**
   * `open` within OPEN_TIMEOUT_FACTOR × connectTimeoutMs: an open that never settles (an
   * OAuth endpoint that stalls) would otherwise hold every use of the connection, which all
   * wait for the same opening. A client that arrives after the deadline is closed.
   */
  private bounded(open: Promise<MCPClient>): Promise<MCPClient> {
    const ms = this.options.connectTimeoutMs * OPEN_TIMEOUT_FACTOR;
    let timer: NodeJS.Timeout | undefined;
    let late = false;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        late = true;
        reject(new Error(`the tool server did not connect within ${ms} ms`));
      }, ms);
    });
    const settled = open.then((client) => {
      if (late) void client.close().catch((error: unknown) => log.warn(`closing a late connection: ${this.redact(describe(error))}`));
      return client;
    });
    return Promise.race([settled, deadline]).finally(() => clearTimeout(timer));
  }

  private backOff(): void {
    const base = this.options.backoffMs ?? 0;
    if (base === 0) return;
    this.retryAt = this.options.now() + Math.min(MAX_BACKOFF_MS, base * 2 ** this.failures);
    this.failures++;
  }

  /** Drops the client (after a failure): the next use connects again. */
  private drop(client: Promise<MCPClient>, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.set("failed", error);
    this.backOff();
    void client.then((c) => c.close()).catch((closeError: unknown) => log.warn(`closing a failed connection: ${this.redact(describe(closeError))}`));
  }

  /** Runs `fn` on the connection (made when there is none); a call that cannot have been delivered is sent once more on a new one. */
  async use<T>(fn: (client: MCPClient) => Promise<T>, signal?: AbortSignal): Promise<T> {
    this.users++;
    clearTimeout(this.timer);
    try {
      for (let attempt = 0; ; attempt++) {
        const client = this.client ?? this.connect();
        try {
          return await fn(await client);
        } catch (error) {
          if (signal?.aborted || (error instanceof MCPClientError && error.code !== undefined)) throw error;
          const connect = this.options.needsConnect && unauthorized(error) ? this.options.needsConnect() : undefined;
          this.drop(client, connect ?? error);
          if (connect) {
            this.set("unauthorized", connect);
            throw connect;
          }
          if (attempt > 0 || !undelivered(error)) throw new Error(this.redact(describe(error)), { cause: error });
        }
      }
    } finally {
      if (--this.users === 0) this.timer = setTimeout(() => void this.close(), this.options.idleMs).unref();
    }
  }

  /** The server's tools and instructions, as it announces them now. */
  list(): Promise<Listing> {
    return this.use(async (client) => {
      const tools: ToolInfo[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const result = await client.listTools({ ...(cursor ? { params: { cursor } } : {}), options: { timeout: this.options.connectTimeoutMs } });
        for (const tool of result.tools) tools.push({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: { ...tool.inputSchema } });
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      return { tools, ...(client.instructions ? { instructions: client.instructions } : {}) };
    });
  }

  /** Closes the client (a remote server is told its MCP session ends); a server that does not answer within CLOSE_WAIT_MS is left. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    if (this.status.state !== "failed" && this.status.state !== "unauthorized") this.set("idle");
    if (!client) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), CLOSE_WAIT_MS).unref()));
    const closing = client.then((c) => c.close()).then(
      () => "closed" as const,
      (error: unknown) => {
        log.warn(`closing a connection: ${this.redact(describe(error))}`);
        return "closed" as const;
      },
    );
    if ((await Promise.race([closing, late])) === "late") log.warn(`a tool server did not answer the end of its session within ${CLOSE_WAIT_MS} ms: left`);
    clearTimeout(timer);
  }
}
