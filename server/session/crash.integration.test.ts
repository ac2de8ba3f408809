import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUrl, makeTeam, type TeamFixture } from "../../test/db";
import { finish, PRICES, script } from "../../test/session-harness";
import { Bus, type Envelope } from "../bus/bus";
import { type Db, createDb } from "../db/client";
import { applyMigrations } from "../db/migrate";
import { testServices } from "../../test/runtime";
import * as Event from "./events";
import { RunLock } from "./lock";
import type { Part, WithParts } from "./message";
import { ABORTED_TOOL } from "./processor";
import * as Prompt from "./prompt";
import { INTERRUPTED_MESSAGE, recover } from "./recovery";
import { Session } from ".";
import { withActor } from "../services";

/**
 * Crash safety with a real SIGKILL: a separate server process
 * (test/crash-server.ts) runs two sessions — one with streamed text, a running bash
 * command and a pending permission ask, one still streaming text — and is killed
 * mid-flight. The "restarted" server (new bus, lock, runners and permission service on
 * the same database) runs crash recovery and the sessions are checked and used again.
 *
 * The file has a database of its own: recovery looks at every session of its database
 * and must not touch the busy sessions of other test files.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const name = `parley_crash_${process.pid}_${Date.now()}`;
const url = (() => {
  const u = new URL(databaseUrl());
  u.pathname = `/${name}`;
  return u.toString();
})();

let db: Db | undefined;
let dir = "";
let child: ChildProcess | undefined;
const locks: RunLock[] = [];

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Signal a process (or, with a negative id, a process group) that may already be gone. */
function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "parley-crash-"));
  await admin(`CREATE DATABASE ${name}`);
  await applyMigrations(url);
  db = createDb(url, { max: 4 });
});

afterAll(async () => {
  // Nothing this file started may outlive it: the server process, then the bash command's group.
  if (child && child.exitCode === null && child.signalCode === null && child.pid !== undefined) kill(child.pid, "SIGKILL");
  const pidFile = path.join(dir, "project", "bash.pid");
  let group: number | undefined;
  try {
    group = Number.parseInt(readFileSync(pidFile, "utf8"), 10);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (group && group > 1) kill(-group, "SIGKILL");
  await Promise.all(locks.splice(0).map((l) => l.close()));
  await db?.$disconnect();
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Spawn the server process; resolves once it printed READY. */
function startServer(team: TeamFixture, toolSession: string, streamSession: string, taskSession: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ["--import", "tsx", "test/crash-server.ts", team.teamId, team.userId, toolSession, streamSession, taskSession], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, PARLEY_DATA_DIR: path.join(dir, "data"), PARLEY_OFFLINE_TPS: "200" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = proc;
  let stdout = "";
  let stderr = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not get ready in time\n${stdout}\n${stderr}`)), 40_000);
    proc.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (stdout.includes("READY\n")) {
        clearTimeout(timer);
        resolve(proc);
      }
    });
    proc.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    proc.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited early (${code ?? signal ?? "?"})\n${stdout}\n${stderr}`));
    });
  });
}

function sigkill(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    proc.once("exit", () => resolve());
    kill(proc.pid ?? 0, "SIGKILL");
  });
}

function partsOf(messages: WithParts[], type: Part["type"]): Part[] {
  return messages.flatMap((m) => m.parts.filter((p) => p.type === type));
}

/** The text parts of the assistant's messages. */
function assistantTexts(messages: WithParts[]): Part[] {
  return messages.flatMap((m) => (m.info.role === "assistant" ? m.parts.filter((p) => p.type === "text") : []));
}

describe("crash recovery after a real SIGKILL (integration)", () => {
  it("closes what the killed server left open, keeps what it wrote, and the session answers again", async () => {
    if (!db) throw new Error("no database");
    const project = path.join(dir, "project");
    mkdirSync(project);
    const team = await makeTeam({ db, bus: new Bus(), directory: project });
    writeFileSync(path.join(project, ".env"), "SECRET=1\n");
    // Named sessions: no background title generation runs beside the loop.
    const toolSession = (await Session.create(team.ctx, { projectId: team.projectId, title: "crash: tools" })).id;
    const streamSession = (await Session.create(team.ctx, { projectId: team.projectId, title: "crash: streaming" })).id;
    const taskSession = (await Session.create(team.ctx, { projectId: team.projectId, title: "crash: subagent" })).id;

    const proc = await startServer(team, toolSession, streamSession, taskSession);
    await sigkill(proc);

    // What the dead server left in the database.
    const before = { tool: await Session.allMessages(team.ctx, toolSession), stream: await Session.allMessages(team.ctx, streamSession) };
    const [childSession] = await Session.children(team.ctx, taskSession);
    if (!childSession) throw new Error("the subagent's child session was not created");
    const rows = await db.session.findMany({ where: { id: { in: [toolSession, streamSession, taskSession, childSession.id] } }, select: { status: true } });
    expect(rows.map((r) => r.status)).toEqual(["busy", "busy", "busy", "busy"]);
    const textsBefore = [...assistantTexts(before.tool), ...assistantTexts(before.stream)];
    expect(textsBefore).toHaveLength(2);
    for (const p of textsBefore) expect(p.type === "text" && p.text.trim()).not.toBe("");
    const streaming = assistantTexts(before.stream).find((p) => p.type === "text" && p.time?.end === undefined);
    expect(streaming).toBeDefined();
    // Killed mid-tool: the command was running, the read waiting for its answer.
    expect(partsOf(before.tool, "tool").map((p) => (p.type === "tool" ? [p.tool, p.state.status] : []))).toEqual([
      ["bash", "running"],
      ["read", "running"],
    ]);
    const pendingBefore = await db.permissionRequest.findMany({ where: { sessionId: toolSession, status: "pending" } });
    expect(pendingBefore.map((r) => r.permission)).toEqual(["read"]);

    // The restart: new services (bus, lock, runners, permission service) on the same database,
    // whose model (used at the end) answers "I am back.".
    const model = script([
      [
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "I am back." },
        { type: "text-end", id: "t" },
        finish("stop"),
      ],
    ]);
    const bus = new Bus();
    const events: Envelope[] = [];
    bus.subscribe({ teamId: team.teamId }, (e) => events.push(e));
    const lock = new RunLock(url);
    locks.push(lock);
    const services = testServices(bus, {
      db,
      lock,
      models: {
        resolve: (ref) => ({ ref, language: model, limit: { context: 100_000, output: 4_000 }, cost: PRICES }),
        default: () => ({ providerId: "test", modelId: "scripted" }),
      },
      settings: { dataDir: path.join(dir, "data"), maxAttempts: 1, compaction: { auto: false, prune: false }, flushMs: 20 },
      tools: [],
      executeTool: () => Promise.reject(new Error("no tools here")),
    });
    const { runners, permissions } = services;
    const recovered = new Set<string>();
    // PostgreSQL frees the dead server's advisory locks once it notices the closed connection.
    const deadline = Date.now() + 10_000;
    while (![toolSession, streamSession, taskSession, childSession.id].every((id) => recovered.has(id))) {
      if (Date.now() > deadline) throw new Error(`not recovered: ${[...recovered].join(", ")}`);
      for (const id of await recover(services)) recovered.add(id);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // No session left busy.
    const ctx = withActor(services, team.ctx.actor);
    expect((await Session.get(ctx, toolSession)).status).toEqual({ type: "idle" });
    expect((await Session.get(ctx, streamSession)).status).toEqual({ type: "idle" });
    expect(await db.session.count({ where: { status: { not: "idle" } } })).toBe(0);
    const statusEvents = events.filter((e) => e.name === Event.StatusChanged.name).map((e) => e.payload);
    expect(statusEvents).toEqual(
      expect.arrayContaining([
        { sessionId: toolSession, status: { type: "idle" } },
        { sessionId: streamSession, status: { type: "idle" } },
      ]),
    );

    const after = { tool: await Session.allMessages(ctx, toolSession), stream: await Session.allMessages(ctx, streamSession) };
    for (const messages of [after.tool, after.stream]) {
      const assistant = messages.flatMap((m) => (m.info.role === "assistant" ? [m.info] : []))[0];
      expect(assistant?.error).toEqual({ name: "AbortedError", message: INTERRUPTED_MESSAGE });
      expect(assistant?.error?.message).toMatch(/^Interrupted/);
      expect(assistant?.time.completed).toEqual(expect.any(Number));
    }
    // Open tools were aborted; their input and start time are kept.
    const tools = partsOf(after.tool, "tool");
    expect(tools.map((p) => (p.type === "tool" ? [p.tool, p.state.status] : []))).toEqual([
      ["bash", "error"],
      ["read", "error"],
    ]);
    for (const p of tools) {
      if (p.type !== "tool" || p.state.status !== "error") continue;
      expect(p.state.error).toBe(ABORTED_TOOL);
      const earlier = partsOf(before.tool, "tool").find((b) => b.id === p.id);
      expect(earlier?.type === "tool" && earlier.state.input).toEqual(p.state.input);
      if (earlier?.type === "tool" && earlier.state.status === "running") expect(p.state.time.start).toBe(earlier.state.time.start);
    }
    // What the command printed before the kill (its live output) is kept.
    const bashPart = tools[0];
    expect(bashPart?.type === "tool" && bashPart.state.status === "error" && bashPart.state.metadata?.output).toBe("started\n");
    // Every text written before the kill is there, unchanged, and closed.
    for (const p of textsBefore) {
      const now = [...after.tool, ...after.stream].flatMap((m) => m.parts).find((x) => x.id === p.id);
      expect(now?.type === "text" && now.text).toBe(p.type === "text" && p.text);
      expect(now?.type === "text" && now.time?.end).toEqual(expect.any(Number));
    }
    // Everything else persisted is intact too (the user messages, reasoning, step starts).
    const ids = (messages: WithParts[]) => messages.flatMap((m) => [m.info.id, ...m.parts.map((p) => p.id)]);
    expect(ids(after.tool)).toEqual(ids(before.tool));
    expect(ids(after.stream)).toEqual(ids(before.stream));
    // The pending ask was failed.
    const answered = await db.permissionRequest.findMany({ where: { id: { in: pendingBefore.map((r) => r.id) } } });
    expect(answered.map((r) => r.status)).toEqual(["reject"]);
    expect(await permissions.pending(ctx.actor, toolSession)).toEqual([]);
    expect(events.some((e) => e.name === "permission.replied")).toBe(true);
    // A subagent killed mid-turn: its child session is closed like any other, and the parent's task call was aborted.
    for (const id of [taskSession, childSession.id]) expect((await Session.get(ctx, id)).status).toEqual({ type: "idle" });
    const childReply = (await Session.allMessages(ctx, childSession.id)).find((m) => m.info.role === "assistant")?.info;
    expect(childReply?.role === "assistant" && childReply.error).toEqual({ name: "AbortedError", message: INTERRUPTED_MESSAGE });
    const taskCall = partsOf(await Session.allMessages(ctx, taskSession), "tool")[0];
    expect(taskCall?.type === "tool" && [taskCall.tool, taskCall.state.status, taskCall.state.status === "error" && taskCall.state.error]).toEqual(["task", "error", ABORTED_TOOL]);
    // Nothing is recovered twice.
    expect(await recover(services)).toEqual([]);

    // The session is usable: a new prompt is answered, with the interrupted turn in its history.
    await Prompt.prompt(ctx, { sessionId: toolSession, parts: [{ type: "text", text: "are you still there?" }], model: { providerId: "test", modelId: "scripted" } });
    await runners.idle(toolSession);
    const final = await Session.allMessages(ctx, toolSession);
    const last = final.at(-1);
    expect(last?.info.role).toBe("assistant");
    expect(last?.info.role === "assistant" && last.info.error).toBeUndefined();
    expect(last?.parts.flatMap((p) => (p.type === "text" ? [p.text] : []))).toEqual(["I am back."]);
    const sent = JSON.stringify(model.doStreamCalls[0]?.prompt);
    expect(sent).toContain("are you still there?");
    expect(sent).toContain("bash.pid");
    expect((await Session.get(ctx, toolSession)).status).toEqual({ type: "idle" });
  });
});
