import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/**
 * A real MCP server for tests, written with the protocol's own SDK and served over
 * Streamable HTTP (stateful: each client gets an MCP session, so a cancellation reaches
 * the call it cancels). It checks a header secret (401 without it), records what it
 * receives, and offers tools for every case: a round trip with arguments, an error
 * result, a call that waits until it is cancelled, an image, an embedded resource.
 *
 * `crash()` drops every connection and session and stops listening; `restart()` listens
 * again on the same port (a client must reconnect and initialise again).
 */

export const TEST_INSTRUCTIONS = "Use the echo tools to add numbers; they never touch files.";

export interface TestMcpServer {
  url: string;
  port: number;
  /** Header lines received, per request (lower-case names). */
  requests: http.IncomingHttpHeaders[];
  /** Calls received, with their arguments. */
  calls: { tool: string; args: unknown }[];
  /** Calls of `wait` that were cancelled (their MCP request was aborted). */
  cancelled: number;
  /** Settles when a call of `wait` has started. */
  waiting(): Promise<void>;
  /** Lets every waiting `wait` call answer (else it waits until cancelled). */
  release(): void;
  /** OAuth mode: the token grants the authorization server made ("authorization_code", "refresh_token"). */
  grants: string[];
  /** OAuth mode: every token the authorization server issued (access and refresh). */
  issued: string[];
  /** OAuth mode: every access token stops working (a refresh still works). */
  expireAccessTokens(): void;
  /** OAuth mode: every token stops working, refresh tokens too (the team must connect again). */
  revokeAll(): void;
  crash(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

const ONE_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** What the test server received, and the hooks of its `wait` tool. */
class Recorder {
  readonly requests: http.IncomingHttpHeaders[] = [];
  readonly calls: { tool: string; args: unknown }[] = [];
  cancelled = 0;
  private onWaiting: (() => void) | undefined;
  waitingStarted = new Promise<void>((resolve) => (this.onWaiting = resolve));
  private releaseAll: (() => void) | undefined;
  released = new Promise<void>((resolve) => (this.releaseAll = resolve));

  started(): void {
    this.onWaiting?.();
  }

  release(): void {
    this.releaseAll?.();
    this.released = new Promise<void>((resolve) => (this.releaseAll = resolve));
    this.waitingStarted = new Promise<void>((resolve) => (this.onWaiting = resolve));
  }
}

/** The test server's tools, on a new MCP server (one per MCP session). */
function echoServer(instructions: string, state: Recorder, manual = 0): McpServer {
  const server = new McpServer({ name: "echo", version: "1.0.0" }, { instructions });
  // A tool whose description is `manual` characters long: tools that take much of a model's context.
  if (manual > 0) server.registerTool("manual", { description: "A long manual. ".repeat(Math.ceil(manual / 15)).slice(0, manual), inputSchema: {} }, () => ({ content: [{ type: "text", text: "read" }] }));
  server.registerTool("add", { description: "Adds two numbers.", inputSchema: { a: z.number().describe("The first"), b: z.number() } }, ({ a, b }) => {
    state.calls.push({ tool: "add", args: { a, b } });
    return { content: [{ type: "text", text: `The sum is ${a + b}.` }] };
  });
  server.registerTool("fail", { description: "Always fails.", inputSchema: { why: z.string() } }, ({ why }) => {
    state.calls.push({ tool: "fail", args: { why } });
    return { isError: true, content: [{ type: "text", text: `It failed: ${why}` }] };
  });
  server.registerTool("wait", { description: "Waits until released or cancelled.", inputSchema: {} }, async (_args, extra) => {
    state.calls.push({ tool: "wait", args: {} });
    state.started();
    const cancelled = new Promise<"cancelled">((resolve) => extra.signal.addEventListener("abort", () => resolve("cancelled"), { once: true }));
    const how = await Promise.race([state.released.then(() => "released" as const), cancelled]);
    if (how === "cancelled") state.cancelled++;
    return { content: [{ type: "text", text: how }] };
  });
  server.registerTool("picture", { description: "Returns an image and a resource.", inputSchema: {} }, () => ({
    content: [
      { type: "text", text: "A picture:" },
      { type: "image", data: ONE_PIXEL_PNG, mimeType: "image/png" },
      { type: "resource", resource: { uri: "memo://note", mimeType: "text/plain", text: "A note from the server." } },
    ],
  }));
  return server;
}

export async function startMcpServer(options: { secret: string; header?: string; instructions?: string; oauth?: boolean; manual?: number }): Promise<TestMcpServer> {
  const header = (options.header ?? "authorization").toLowerCase();
  const expected = header === "authorization" ? `Bearer ${options.secret}` : options.secret;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const state = new Recorder();
  const serverFor = () => echoServer(options.instructions ?? TEST_INSTRUCTIONS, state, options.manual);

  const oauth = options.oauth ? authorizationServer() : undefined;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    state.requests.push(req.headers);
    if (oauth && (await oauth.handle(req, res, base))) return;
    const allowed = oauth ? oauth.valid(req.headers.authorization) : req.headers[header] === expected;
    if (!allowed) {
      const challenge = oauth ? { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` } : {};
      res.writeHead(401, { "content-type": "application/json", ...challenge }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    if (typeof id === "string") {
      res.writeHead(404).end();
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await serverFor().connect(transport);
    await transport.handleRequest(req, res);
  }

  const make = () =>
    http.createServer((req, res) => {
      handle(req, res).catch((error: unknown) => {
        console.error("[test mcp server]", error);
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  let server = make();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;

  async function stop(): Promise<void> {
    await Promise.all([...sessions.values()].map((transport) => transport.close()));
    sessions.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests: state.requests,
    calls: state.calls,
    get cancelled() {
      return state.cancelled;
    },
    waiting: () => state.waitingStarted,
    release: () => state.release(),
    grants: oauth?.grants ?? [],
    issued: oauth?.issued ?? [],
    expireAccessTokens: () => oauth?.access.clear(),
    revokeAll: () => {
      oauth?.access.clear();
      oauth?.refresh.clear();
    },
    crash: stop,
    async restart() {
      server = make();
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    },
    close: stop,
  };
}

async function body(req: http.IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text;
}

/**
 * A small OAuth authorization server on the MCP server's own origin: protected resource
 * and authorization server metadata, dynamic client registration, an authorization
 * endpoint that approves at once (redirecting with a code), and a token endpoint checking
 * PKCE (S256) that also refreshes.
 */
function authorizationServer() {
  const clients = new Map<string, string[]>();
  const codes = new Map<string, { client: string; challenge: string; redirect: string }>();
  const access = new Set<string>();
  const refresh = new Set<string>();
  const grants: string[] = [];
  const issued: string[] = [];
  const json = (res: http.ServerResponse, status: number, value: unknown) => void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
  const issue = (res: http.ServerResponse) => {
    const token = `at-${randomUUID()}`;
    const renewal = `rt-${randomUUID()}`;
    access.add(token);
    refresh.add(renewal);
    issued.push(token, renewal);
    json(res, 200, { access_token: token, token_type: "Bearer", expires_in: 3600, refresh_token: renewal });
  };
  async function handle(req: http.IncomingMessage, res: http.ServerResponse, base: string): Promise<boolean> {
    const url = new URL(req.url ?? "/", base);
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base] }), true;
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      json(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
      return true;
    }
    if (url.pathname === "/register" && req.method === "POST") {
      const metadata = JSON.parse(await body(req)) as { redirect_uris: string[] };
      const id = `client-${randomUUID()}`;
      clients.set(id, metadata.redirect_uris);
      json(res, 201, { ...metadata, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000) });
      return true;
    }
    if (url.pathname === "/authorize") {
      const client = url.searchParams.get("client_id") ?? "";
      const redirect = url.searchParams.get("redirect_uri") ?? "";
      if (!clients.get(client)?.includes(redirect) || url.searchParams.get("code_challenge_method") !== "S256") return json(res, 400, { error: "invalid_request" }), true;
      const code = `code-${randomUUID()}`;
      codes.set(code, { client, challenge: url.searchParams.get("code_challenge") ?? "", redirect });
      const back = new URL(redirect);
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      res.writeHead(302, { location: back.toString() }).end();
      return true;
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(await body(req));
      const grant = form.get("grant_type") ?? "";
      grants.push(grant);
      if (grant === "refresh_token") {
        const token = form.get("refresh_token") ?? "";
        if (!refresh.delete(token)) return json(res, 400, { error: "invalid_grant" }), true;
        return issue(res), true;
      }
      const code = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      if (!code || code.client !== form.get("client_id") || code.challenge !== challenge || code.redirect !== form.get("redirect_uri")) return json(res, 400, { error: "invalid_grant" }), true;
      return issue(res), true;
    }
    return false;
  }
  return {
    handle,
    grants,
    issued,
    access,
    refresh,
    valid: (authorization: string | undefined) => authorization !== undefined && access.has(authorization.replace(/^Bearer /, "")),
  };
}
