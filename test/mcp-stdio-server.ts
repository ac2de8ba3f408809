import { promises as fs } from "node:fs";
import net from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

/**
 * A local MCP server for tests, written with the protocol's SDK and bundled (with its
 * dependencies) into one file that runs inside the tool sandbox over stdio. Besides the
 * usual cases (a round trip, an error result, a call that waits until cancelled, a crash),
 * it probes what it can reach from inside: a path to list or read, one to write, a TCP
 * port, and its own environment.
 */

let cancelled = 0;
const server = new McpServer({ name: "local", version: "1.0.0" }, { instructions: "The local tools probe their sandbox." });
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const failure = (error: unknown) => (error instanceof Error && "code" in error ? String(error.code) : String(error));

server.registerTool("add", { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => text(`The sum is ${a + b}.`));
server.registerTool("fail", { description: "Always fails.", inputSchema: { why: z.string() } }, ({ why }) => ({ isError: true, ...text(`It failed: ${why}`) }));
server.registerTool("wait", { description: "Waits until cancelled.", inputSchema: {} }, (_args, extra) =>
  new Promise((resolve) =>
    extra.signal.addEventListener("abort", () => {
      cancelled++;
      resolve(text("cancelled"));
    }),
  ),
);
server.registerTool("cancelled", { description: "How many waits were cancelled.", inputSchema: {} }, () => text(String(cancelled)));
server.registerTool("crash", { description: "Exits at once.", inputSchema: {} }, () => process.exit(3));
server.registerTool("read", { description: "Lists or reads a path.", inputSchema: { path: z.string() } }, async ({ path }) => {
  try {
    const stat = await fs.stat(path);
    return text(stat.isDirectory() ? `listed: ${(await fs.readdir(path)).join(",")}` : `read: ${await fs.readFile(path, "utf8")}`);
  } catch (error) {
    return text(`refused: ${failure(error)}`);
  }
});
server.registerTool("write", { description: "Writes a file.", inputSchema: { path: z.string() } }, async ({ path }) => {
  try {
    await fs.writeFile(path, "written by the local server\n");
    return text("written");
  } catch (error) {
    return text(`refused: ${failure(error)}`);
  }
});
server.registerTool("connect", { description: "Opens a TCP connection.", inputSchema: { host: z.string(), port: z.number() } }, ({ host, port }) =>
  new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.setTimeout(2_000, () => socket.destroy(new Error("timeout")));
    socket.once("connect", () => {
      socket.destroy();
      resolve(text("connected"));
    });
    socket.once("error", (error) => resolve(text(`refused: ${failure(error)}`)));
  }),
);
server.registerTool("env", { description: "Its environment's names and values.", inputSchema: {} }, () => text(JSON.stringify(process.env)));

await server.connect(new StdioServerTransport());
