import { type MCPClient, type MCPTransport, createMCPClient, validateJSONRPCMessage } from "@ai-sdk/mcp";
import type { JSONRPCMessage } from "@ai-sdk/mcp";
import type { Sandbox, SandboxProcess } from "../sandbox/sandbox";

/**
 * A local tool server: a long-lived process in the tool sandbox (the same bubblewrap
 * confinement as every command the agent runs — server/sandbox), spoken to over its
 * standard input and output, one JSON-RPC message per line. It sees the project read-only
 * (unless its configuration lets it write), no network (unless allowed), and an
 * environment of its configured values only; it never runs with the server's rights.
 */

export interface LocalOptions {
  sandbox: Sandbox;
  command: string[];
  /** The project it works in. */
  directory: string;
  env: Record<string, string>;
  writable: boolean;
  network: boolean;
  /** Characters one message may hold at most. */
  maxMessageChars: number;
  connectTimeoutMs: number;
  onError: (error: unknown) => void;
}

/** The last lines of what the process wrote to stderr (for a status). */
const STDERR_KEEP = 2_000;

export class SandboxStdioTransport implements MCPTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private buffer = "";
  private stderr = "";
  private closed = false;
  /** Calls sent and not yet answered: an abort tells the server (MCP cancellation). */
  private readonly open = new Set<string | number>();

  constructor(
    private readonly proc: SandboxProcess,
    private readonly maxChars: number,
  ) {}

  async start(): Promise<void> {
    const { child } = this.proc;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => this.read(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-STDERR_KEEP)));
    child.stdin?.on("error", (error: Error) => this.onerror?.(error));
    void this.proc.exited.then(({ code, signal }) => {
      if (!this.closed) this.onerror?.(new Error(`the local tool server exited (${code ?? signal ?? "?"})${this.stderr.trim() ? `: ${this.stderr.trim().split("\n").slice(-3).join(" / ")}` : ""}`));
      this.closed = true;
      this.onclose?.();
    });
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > this.maxChars && !this.buffer.includes("\n")) {
      this.onerror?.(new Error(`the local tool server sent a message of more than ${this.maxChars} characters`));
      this.proc.kill();
      return;
    }
    let end: number;
    while ((end = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, end).trim();
      this.buffer = this.buffer.slice(end + 1);
      if (line === "") continue;
      try {
        const message = validateJSONRPCMessage(JSON.parse(line));
        if ("id" in message && !("method" in message) && message.id !== undefined) this.open.delete(message.id);
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  async send(message: JSONRPCMessage, options?: { signal?: AbortSignal }): Promise<void> {
    const stdin = this.proc.child.stdin;
    if (this.closed || !stdin) throw new Error("the local tool server is not running");
    if ("method" in message && message.method === "tools/call" && "id" in message && options?.signal) {
      const id = message.id;
      this.open.add(id);
      options.signal.addEventListener("abort", () => {
        if (this.open.delete(id) && !this.closed) stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "The user stopped the call." } })}\n`);
      }, { once: true });
    }
    await new Promise<void>((resolve, reject) => stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve())));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.proc.child.stdin?.end();
    this.proc.kill();
    await this.proc.exited;
  }
}

/** Starts the process in the sandbox and initialises an MCP client over its pipes. */
export async function localClient(options: LocalOptions): Promise<MCPClient> {
  const proc = await options.sandbox.spawn({
    argv: options.command,
    project: options.directory,
    stdin: "pipe",
    env: options.env,
    ...(options.writable ? {} : { readOnlyProject: true }),
    network: options.network ? "allow" : "none",
  });
  const transport = new SandboxStdioTransport(proc, options.maxMessageChars);
  try {
    return await createMCPClient({
      transport,
      clientName: "parley",
      initializationOptions: { timeout: options.connectTimeoutMs },
      onUncaughtError: options.onError,
    });
  } catch (error) {
    await transport.close();
    throw error;
  }
}
