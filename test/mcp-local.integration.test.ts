import { promises as fs, mkdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Spec } from "../server/mcp/servers";
import { type TestApp, openApp, trpcAnswer, trpcData, until } from "./app";
import { type Browser, joinTeam, signUp } from "./auth";
import { databaseUrl } from "./db";

/**
 * Local tool servers (acceptance 1 for a stdio server in bubblewrap, and acceptance 4): an
 * admin adds one through HTTP — a real MCP server written with the protocol's SDK, bundled
 * into the project and run by the server in the tool sandbox — and every probe the bash
 * sandbox tests make is made from inside it: the data directory, the database, another
 * team's project and the network are out of reach; the project is read-only; its
 * environment holds its configured secret and nothing of the server's.
 */

const SECRET = "local-env-secret-5d1c0b";

describe("local tool servers in the sandbox (integration)", { timeout: 60_000 }, () => {
  let app: TestApp;
  let ann: Browser;
  let bob: Browser;
  let teamId: string;
  let projectId: string;
  let projectDir: string;
  let dataDir: string;
  let otherProject: string;
  let listener: net.Server;
  let listenerPort: number;
  const dbPort = Number(new URL(databaseUrl()).port);

  beforeAll(async () => {
    listener = net.createServer((socket) => {
      // The probe closes at once (a reset here is expected).
      socket.on("error", () => undefined);
      socket.end("hello\n");
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    listenerPort = (listener.address() as net.AddressInfo).port;
    app = await openApp("mcplocal", (dir) => {
      mkdirSync(path.join(dir, "projects", "app"), { recursive: true });
      mkdirSync(path.join(dir, "projects", "other-team"), { recursive: true });
      writeFileSync(path.join(dir, "projects", "other-team", "secret.txt"), "OTHER TEAM SECRET\n");
      return { PARLEY_DATA_DIR: path.join(dir, "data"), PARLEY_PROJECT_DIR: path.join(dir, "projects", "app"), PARLEY_PROJECTS_ROOT: path.join(dir, "projects"), PARLEY_SIGNUP: "invite" };
    });
    projectDir = path.join(app.dir, "projects", "app");
    dataDir = app.rt.services.settings.dataDir;
    otherProject = path.join(app.dir, "projects", "other-team");
    await build({ entryPoints: [path.join(import.meta.dirname, "mcp-stdio-server.ts")], bundle: true, platform: "node", format: "esm", target: "node22", outfile: path.join(projectDir, ".mcp", "server.mjs"), logLevel: "silent" });
    const auth = await (await import("../server/auth/instance")).getAuth();
    ann = await signUp(auth, "ann@local.test", "Ann");
    teamId = (await (await import("../server/context")).memberContext(ann.headers)).actor.teamId;
    projectId = (await app.rt.services.db.project.findFirstOrThrow({ where: { teamId } })).id;
    bob = await joinTeam(auth, ann, teamId, "bob@local.test", { role: "member" });
    await trpcData(app, "secret.set", { name: "local-token", kind: "header", value: SECRET }, ann.headers);
  });

  afterAll(async () => {
    await app?.rt.services.mcp.close();
    await app?.close();
    await new Promise((resolve) => listener?.close(resolve));
  });

  const spec = async (name = "local"): Promise<Spec> => (await app.rt.services.mcp.specs(teamId, projectId)).find((s) => s.name === name)!;
  const call = async (tool: string, args: Record<string, unknown> = {}, signal = new AbortController().signal, server = "local"): Promise<string> => {
    const result = (await app.rt.services.mcp.call(teamId, await spec(server), tool, args, signal, projectId)) as { content: Array<{ text?: string }>; isError?: boolean };
    return `${result.isError ? "error: " : ""}${result.content.map((c) => c.text ?? "").join("")}`;
  };

  it("a member cannot add a local server (code execution); an admin adds one whose environment is a team secret", async () => {
    const server = { name: "local", type: "local", command: ["node", ".mcp/server.mjs"], environment: [{ name: "LOCAL_TOKEN", secret: "local-token" }] };
    expect((await trpcAnswer(app, "mcp.save", server, bob.headers)).status).toBe(403);
    await trpcData(app, "mcp.save", server, ann.headers);
    const listed = await trpcAnswer<Array<{ name: string; type: string; command: string[]; environment: unknown[] }>>(app, "mcp.list", {}, bob.headers);
    expect(listed.data.map((s) => [s.name, s.type, s.command, s.environment])).toEqual([["local", "local", ["node", ".mcp/server.mjs"], [{ name: "LOCAL_TOKEN", secret: "local-token" }]]]);
    expect(listed.text).not.toContain(SECRET);
  });

  it("acceptance 1 (stdio in bubblewrap): tools listed with schemas, a round trip, an error result", async () => {
    const view = await trpcData<{ status: { state: string; error?: string }; tools: Array<{ id: string }> }>(app, "mcp.refresh", { name: "local" }, ann.headers);
    expect(view.status).toMatchObject({ state: "connected" });
    expect(view.tools.map((t) => t.id)).toEqual(expect.arrayContaining(["local_add", "local_fail", "local_wait", "local_read", "local_connect"]));
    const cached = await app.rt.services.db.toolServerTools.findFirstOrThrow({ where: { teamId } });
    expect(JSON.stringify(cached.tools)).toContain('"required":["a","b"]');
    expect(cached.instructions).toBe("The local tools probe their sandbox.");
    expect(await call("add", { a: 20, b: 22 })).toBe("The sum is 42.");
    expect(await call("fail", { why: "on purpose" })).toBe("error: It failed: on purpose");
  });

  it("acceptance 1: an abort mid-call cancels it on the server", async () => {
    const abort = new AbortController();
    const waiting = call("wait", {}, abort.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    abort.abort();
    await expect(waiting).rejects.toThrow(/aborted/);
    await until("the server to see the cancellation", async () => ((await call("cancelled")) === "1" ? true : undefined));
  });

  it("acceptance 1: a crashed server shows a failed status and is started again (after its backoff)", async () => {
    await expect(call("crash")).rejects.toThrow();
    const listed = await trpcData<Array<{ status: { state: string; error?: string } }>>(app, "mcp.list", { projectId }, bob.headers);
    expect(listed[0]?.status.state).toBe("failed");
    const again = await until("the server to be started again", async () => {
      try {
        return await call("add", { a: 1, b: 2 });
      } catch (error) {
        if (error instanceof Error && /next attempt in/.test(error.message)) return undefined;
        throw error;
      }
    });
    expect(again).toBe("The sum is 3.");
  });

  it("acceptance 4: from the local server's sandbox the data directory, the database, another project and the network are unreachable; the project is read-only", async () => {
    for (const target of [dataDir, path.join(dataDir, "secret-key"), otherProject, path.join(otherProject, "secret.txt")]) {
      const answer = await call("read", { path: target });
      expect(answer, target).toMatch(/^refused: /);
    }
    for (const port of [dbPort, listenerPort]) expect(await call("connect", { host: "127.0.0.1", port }), String(port)).toMatch(/^refused: /);
    expect(await call("connect", { host: "1.1.1.1", port: 443 })).toMatch(/^refused: /);
    expect(await call("read", { path: projectDir })).toContain("listed: ");
    expect(await call("write", { path: path.join(projectDir, "pwned.txt") })).toMatch(/^refused: /);
    await expect(fs.access(path.join(projectDir, "pwned.txt"))).rejects.toThrow();
    expect(await call("write", { path: "/tmp/scratch.txt" })).toBe("written");
    const env = JSON.parse(await call("env")) as Record<string, string>;
    expect(env.LOCAL_TOKEN).toBe(SECRET);
    expect(Object.keys(env).filter((name) => /DATABASE_URL|PARLEY_|OPENAI_/.test(name))).toEqual([]);
  });

  it("a local server whose configuration allows the network (network: true, for one project) reaches a TCP listener on the host; the rest of its confinement holds", async () => {
    await trpcData(app, "mcp.save", { projectId, name: "netlocal", type: "local", command: ["node", ".mcp/server.mjs"], network: true }, ann.headers);
    const listed = await trpcData<Array<{ name: string; source: string; network: boolean }>>(app, "mcp.list", { projectId }, bob.headers);
    expect(listed.find((s) => s.name === "netlocal")).toMatchObject({ source: "project", network: true });
    // The sandbox shares the host's network then (server/sandbox/bwrap.ts: no --unshare-net): the host's loopback is reachable.
    expect(await call("connect", { host: "127.0.0.1", port: listenerPort }, undefined, "netlocal")).toBe("connected");
    // The network is all it gains: the data directory and other projects stay out of reach, the project read-only.
    for (const target of [dataDir, otherProject]) expect(await call("read", { path: target }, undefined, "netlocal"), target).toMatch(/^refused: /);
    expect(await call("write", { path: path.join(projectDir, "pwned.txt") }, undefined, "netlocal")).toMatch(/^refused: /);
    // The server without the permission still cannot reach the same listener.
    expect(await call("connect", { host: "127.0.0.1", port: listenerPort })).toMatch(/^refused: /);
  });
});
