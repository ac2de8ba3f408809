import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, openApp, trpcAnswer, trpcData } from "./app";
import { type Browser, signUp } from "./auth";
import { type TestMcpServer, startMcpServer } from "./mcp-server";

/**
 * Acceptance 5 (first half), through HTTP on a server with the default settings: a remote
 * tool server's URL at a loopback, link-local or private address is refused when an admin
 * saves it, and — for the configuration's servers, and names that resolve there — when the
 * server connects: the server at that address never gets a request.
 */

describe("tool servers and private addresses (integration, through HTTP)", () => {
  let app: TestApp;
  let mcp: TestMcpServer;
  let ann: Browser;

  beforeAll(async () => {
    mcp = await startMcpServer({ secret: "ssrf-secret-value-0042" });
    app = await openApp("mcpssrf", (dir) => {
      mkdirSync(path.join(dir, "projects", "app"), { recursive: true });
      const config = path.join(dir, "parley.config.json");
      // The operator's own servers (OpenCode's `mcp` block, unchanged): one at a loopback address, one by a name that resolves to it.
      writeFileSync(config, JSON.stringify({ mcp: { inner: { type: "remote", url: mcp.url, headers: { Authorization: "Bearer {env:SSRF_TOKEN}" } }, named: { type: "remote", url: `http://localhost:${mcp.port}/mcp`, enabled: true } } }));
      return { PARLEY_CONFIG: config, PARLEY_DATA_DIR: path.join(dir, "data"), PARLEY_PROJECT_DIR: path.join(dir, "projects", "app"), PARLEY_PROJECTS_ROOT: path.join(dir, "projects"), PARLEY_SIGNUP: "invite" };
    });
    ann = await signUp(await (await import("../server/auth/instance")).getAuth(), "ann@ssrf.test", "Ann");
  });

  afterAll(async () => {
    await app?.close();
    await mcp?.close();
  });

  it("acceptance 5: an admin's http://127.0.0.1:<port> (and other private forms) is refused by default", async () => {
    for (const url of [mcp.url, `http://localhost:${mcp.port}/mcp`, `http://[::1]:${mcp.port}/mcp`, `http://[::ffff:127.0.0.1]:${mcp.port}/mcp`, "https://169.254.169.254/latest", "https://10.1.2.3/mcp", "https://192.168.0.10/mcp"]) {
      const answer = await trpcAnswer(app, "mcp.save", { name: "inner-tools", url }, ann.headers);
      expect(answer.status, url).toBe(400);
      expect(answer.message, url).toContain("private address");
    }
    expect(await app.rt.services.db.toolServer.count()).toBe(0);
  });

  it("acceptance 5: the configuration's servers at loopback addresses (a literal, or a name resolving there) are refused when connecting, and nothing reaches them", async () => {
    const before = mcp.requests.length;
    for (const name of ["inner", "named"]) {
      const view = await trpcData<{ status: { state: string; error?: string }; tools: unknown[] }>(app, "mcp.refresh", { name }, ann.headers);
      expect(view.status.state, name).toBe("failed");
      expect(view.status.error, name).toContain("private address");
      expect(view.tools).toEqual([]);
    }
    expect(mcp.requests.length).toBe(before);
    const listed = await trpcData<Array<{ name: string; source: string; headers: unknown[] }>>(app, "mcp.list", {}, ann.headers);
    expect(listed.map((s) => [s.name, s.source, s.headers])).toEqual([
      ["inner", "config", [{ name: "Authorization" }]],
      ["named", "config", []],
    ]);
  });
});
