import { randomUUID } from "node:crypto";
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
  crash(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

const ONE_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export async function startMcpServer(options: { secret: string; header?: string; instructions?: string }): Promise<TestMcpServer> {
  const header = (options.header ?? "authorization").toLowerCase();
  const expected = header === "authorization" ? `Bearer ${options.secret}` : options.secret;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let onWaiting: (() => void) | undefined;
  let waitingStarted = new Promise<void>((resolve) => (onWaiting = resolve));
  let releaseAll: (() => void) | undefined;
  let released = new Promise<void>((resolve) => (releaseAll = resolve));

  const state: Pick<TestMcpServer, "requests" | "calls" | "cancelled"> = { requests: [], calls: [], cancelled: 0 };

  function serverFor(): McpServer {
    const server = new McpServer({ name: "echo", version: "1.0.0" }, { instructions: options.instructions ?? TEST_INSTRUCTIONS });
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
      onWaiting?.();
      const cancelled = new Promise<"cancelled">((resolve) => extra.signal.addEventListener("abort", () => resolve("cancelled"), { once: true }));
      const how = await Promise.race([released.then(() => "released" as const), cancelled]);
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

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    state.requests.push(req.headers);
    if (req.headers[header] !== expected) {
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
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

  let server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error("[test mcp server]", error);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  async function stop(): Promise<void> {
    await Promise.all([...sessions.values()].map((transport) => transport.close()));
    sessions.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    get requests() {
      return state.requests;
    },
    get calls() {
      return state.calls;
    },
    get cancelled() {
      return state.cancelled;
    },
    waiting: () => waitingStarted,
    release() {
      releaseAll?.();
      released = new Promise<void>((resolve) => (releaseAll = resolve));
      waitingStarted = new Promise<void>((resolve) => (onWaiting = resolve));
    },
    crash: stop,
    async restart() {
      server = http.createServer((req, res) => {
        handle(req, res).catch((error: unknown) => {
          console.error("[test mcp server]", error);
          if (!res.headersSent) res.writeHead(500).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    },
    close: stop,
  };
}
