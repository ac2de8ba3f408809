import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hookedDb, makeTeam } from "../../test/db";
import { record } from "../../test/fixtures";
import { testServices } from "../../test/runtime";
import { asking, settled } from "../../test/session-harness";
import { Agents } from "../agent/agent";
import { Bus } from "../bus/bus";
import type { Db } from "../db/client";
import { offlineModel } from "../provider/provider";
import * as Id from "../id";
import { type Context, withActor } from "../services";
import * as Event from "./events";
import type { Info } from "./info";
import type { PartOf, WithParts } from "./message";
import { Session } from ".";

/**
 * Subagents with the built-in offline model, the real tools and the real loop: the task
 * tool runs a child session, reports its progress, fails and stops cleanly.
 */

/** The offline model, recording every request made to it. */
function recording(calls: LanguageModelV4CallOptions[]): LanguageModelV4 {
  const model = offlineModel();
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => {
      calls.push(options);
      return model.doGenerate(options);
    },
    doStream: (options) => {
      calls.push(options);
      return model.doStream(options);
    },
  };
}

const userTexts = (call: LanguageModelV4CallOptions) =>
  call.prompt.flatMap((m) => (m.role === "user" ? m.content.flatMap((c) => (c.type === "text" ? [c.text] : [])) : []));
const toolNames = (call: LanguageModelV4CallOptions) => (call.tools ?? []).map((t) => t.name).sort();

/** The test database, recording the SQL of every `$queryRaw` it runs. */
function recordingReads(queries: string[]): Db {
  return hookedDb("$queryRaw", (sql) => {
    queries.push(sql);
    return undefined;
  });
}
/** Store.lastReply's statement: a session's newest assistant message with its text parts. */
const readsLastReply = (sql: string) => sql.includes("json_agg") && sql.includes("role = 'assistant'");

describe("subagents (integration, offline model)", () => {
  let dir: string;
  let bus: Bus;
  let ctx: Context;
  let projectId: string;
  let calls: LanguageModelV4CallOptions[];
  let queries: string[];

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "parley-subagent-"));
    await fs.writeFile(path.join(dir, "README.md"), "# Sample\n");
    calls = [];
    queries = [];
    bus = new Bus();
    const language = recording(calls);
    const services = testServices(bus, {
      db: recordingReads(queries),
      agents: new Agents({
        reviewer: { description: "Reviews code and says what to fix.", prompt: "You review code: list what to fix, most important first.", tools: ["read", "grep", "list"], permission: { grep: "deny" } },
      }),
      models: {
        resolve: (ref) => ({ ref, language, limit: { context: 0, output: 0 }, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }),
        default: () => ({ providerId: "offline", modelId: "parley-offline" }),
      },
    });
    const team = await makeTeam({ bus, directory: dir, services });
    ctx = team.ctx;
    projectId = team.projectId;
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function idle(sessionId: string) {
    await settled(ctx, sessionId);
  }

  async function ask(text: string, permission?: Info["permission"]) {
    const parent = await Session.create(ctx, { projectId, title: "parent", ...(permission ? { permission } : {}) });
    await Session.prompt(ctx, { sessionId: parent.id, parts: [{ type: "text", text }] });
    return parent;
  }

  /** The parent's child once its model is being asked (see `asking`: an abort then answers its prompt). */
  async function runningChild(parentId: string): Promise<Info> {
    const end = Date.now() + 10_000;
    for (;;) {
      const [child] = await Session.children(ctx, parentId);
      if (child) {
        await asking(ctx, child.id, "", Math.max(0, end - Date.now()));
        return child;
      }
      if (Date.now() > end) throw new Error("the child never ran");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** A session as its runner hands it to the task tool. */
  const callerOf = (session: Info) => ({ teamId: session.teamId, sessionId: session.id, projectId: session.projectId, directory: session.directory, workspaceId: session.workspaceId ?? null, authorId: session.authorId, agent: "build", depth: 0 });

  const taskParts = (messages: WithParts[]) => messages.flatMap((m) => m.parts.filter((p): p is PartOf<"tool"> => p.type === "tool" && p.tool === "task"));

  it("runs the job in a child session that sees only its prompt and its own tools, reporting its tool calls live", async () => {
    const events = record(bus, ctx.actor.teamId);
    const parent = await ask("use a subagent to list files");
    await idle(parent.id);
    const [child, ...more] = await Session.children(ctx, parent.id);
    expect(more).toHaveLength(0);
    expect(child).toMatchObject({ parentId: parent.id, title: "list files (@general subagent)", agent: "general" });
    if (!child) throw new Error("no child");
    await idle(child.id);

    const childMessages = await Session.allMessages(ctx, child.id);
    expect(childMessages[0]?.parts.flatMap((p) => (p.type === "text" ? [p.text] : []))).toEqual(["list files"]);
    // The parent's agent wrote the child's prompt: its message says so.
    expect(childMessages[0]?.info.role === "user" && childMessages[0].info.delegatedBy).toEqual({ sessionId: parent.id, agent: "build" });
    const first = calls.find((call) => userTexts(call).join() === "list files");
    if (!first) throw new Error("the child made no model request");
    expect(userTexts(first)).toEqual(["list files"]);
    expect(toolNames(first)).toContain("list");
    expect(toolNames(first)).not.toContain("task");
    expect(toolNames(first)).not.toContain("todowrite");

    const [task] = taskParts(await Session.allMessages(ctx, parent.id));
    expect(task?.state.status).toBe("completed");
    if (task?.state.status !== "completed") throw new Error("the task did not complete");
    expect(task.state.output).toContain(`task_id: ${child.id}`);
    // The result is the child's last reply as stored, taken from the child's own events: its reply is not read back.
    const childAnswer = childMessages.findLast((m) => m.info.role === "assistant")?.parts.flatMap((p) => (p.type === "text" ? [p.text] : []));
    expect(childAnswer?.length).toBeGreaterThan(0);
    expect(task.state.output.split("<task_result>\n")[1]).toBe(`${childAnswer?.join("\n\n")}\n</task_result>`);
    expect(queries.filter(readsLastReply)).toEqual([]);
    expect(task.state.metadata).toMatchObject({ sessionId: child.id, summary: [{ tool: "list", state: { status: "completed" } }] });
    // People read the answer alone (the card); the task_id protocol is the model's.
    expect(task.state.metadata?.answer).toBe(childAnswer?.join("\n\n"));

    // The parent's card heard the child's list call move along, live.
    const seen = events.events.flatMap((e) => {
      if (e.name !== Event.PartUpdated.name) return [];
      const { part } = Event.PartUpdated.schema.parse(e.payload);
      if (part.type !== "tool" || part.tool !== "task" || part.state.status !== "running") return [];
      const summary = part.state.metadata?.summary;
      return Array.isArray(summary) ? summary.map((c: { state: { status: string } }) => c.state.status) : [];
    });
    expect(seen).toContain("running");
    expect(seen).toContain("completed");
    events.stop();
  });

  it("applies the parent session's rules inside the child", async () => {
    const parent = await ask("use a subagent to list files", [{ permission: "list", pattern: "*", action: "deny" }]);
    await idle(parent.id);
    const [child] = await Session.children(ctx, parent.id);
    if (!child) throw new Error("no child");
    expect(child.permission).toEqual([{ permission: "list", pattern: "*", action: "deny" }]);
    const first = calls.find((call) => userTexts(call).join() === "list files");
    expect(first && toolNames(first)).not.toContain("list");
  });

  it("a member's session with an \"allow\" rule an admin set: its child inherits the rule and runs", async () => {
    const memberId = Id.ascending("user");
    await ctx.db.user.create({ data: { id: memberId, email: `${memberId}@test.local`, name: "Member" } });
    await ctx.db.membership.create({ data: { teamId: ctx.actor.teamId, userId: memberId, role: "member" } });
    const member = withActor(ctx, { userId: memberId, teamId: ctx.actor.teamId });
    const session = await Session.create(member, { projectId, title: "member's" });
    const allow = [{ permission: "bash", pattern: "ls *", action: "allow" as const }];
    await Session.update(ctx, session.id, { permission: allow });
    await Session.prompt(member, { sessionId: session.id, parts: [{ type: "text", text: "use a subagent to list files" }] });
    await idle(session.id);
    const [child] = await Session.children(ctx, session.id);
    expect(child).toMatchObject({ authorId: memberId, permission: allow });
    const [task] = taskParts(await Session.allMessages(ctx, session.id));
    expect(task?.state.status).toBe("completed");
  });

  it("runs two tasks of one step in parallel", async () => {
    const parent = await ask("in parallel, ask two subagents to list files and read README.md");
    await idle(parent.id);
    const children = await Session.children(ctx, parent.id);
    expect(children.map((c) => c.title).sort()).toEqual(["list files (@general subagent)", "read README.md (@general subagent)"]);
    const windows = await Promise.all(
      children.map(async (c) => {
        const messages = await Session.allMessages(ctx, c.id);
        const last = messages.findLast((m) => m.info.role === "assistant")?.info;
        return { start: c.time.created, end: last?.role === "assistant" ? (last.time.completed ?? 0) : 0 };
      }),
    );
    const [a, b] = windows;
    if (!a || !b) throw new Error("two children expected");
    expect(Math.max(a.start, b.start)).toBeLessThan(Math.min(a.end, b.end));
    const tasks = taskParts(await Session.allMessages(ctx, parent.id));
    expect(tasks.map((t) => t.state.status)).toEqual(["completed", "completed"]);
  });

  it("a failing child is an error result, and the parent answers", async () => {
    const parent = await ask("use a subagent to `fail with 400`");
    await idle(parent.id);
    const messages = await Session.allMessages(ctx, parent.id);
    const [task] = taskParts(messages);
    expect(task?.state.status).toBe("error");
    expect(task?.state.status === "error" && task.state.error).toMatch(/The subagent failed: Simulated HTTP 400/);
    const last = messages.findLast((m) => m.info.role === "assistant")?.info;
    expect(last?.role === "assistant" && last.error).toBeFalsy();
    expect(last?.role === "assistant" && last.finish).toBe("stop");
  });

  it("aborting the parent stops its running child: both end idle, the child with an abort error", async () => {
    const parent = await ask("use a subagent to `hang`");
    const child = await runningChild(parent.id);
    await Session.abort(ctx, parent.id);
    await idle(parent.id);
    await idle(child.id);
    expect((await Session.get(ctx, child.id)).status).toEqual({ type: "idle" });
    const childLast = (await Session.allMessages(ctx, child.id)).findLast((m) => m.info.role === "assistant")?.info;
    expect(childLast?.role === "assistant" && childLast.error?.name).toBe("AbortedError");
    const [task] = taskParts(await Session.allMessages(ctx, parent.id));
    expect(task?.state.status).toBe("error");
  });

  it("a child stopped on its own is an error result of the task, and the parent goes on", async () => {
    const parent = await ask("use a subagent to `hang`");
    const child = await runningChild(parent.id);
    await Session.abort(ctx, child.id);
    await idle(parent.id);
    const messages = await Session.allMessages(ctx, parent.id);
    const [task] = taskParts(messages);
    expect(task?.state.status === "error" && task.state.error).toMatch(/^The subagent failed: Aborted/);
    const last = messages.findLast((m) => m.info.role === "assistant")?.info;
    expect(last?.role === "assistant" && last.error).toBeFalsy();
  });

  it("'@explore …' from the user runs that subagent first, then the model answers with its result", async () => {
    const parent = await ask("@explore list files");
    await idle(parent.id);
    const [child] = await Session.children(ctx, parent.id);
    expect(child).toMatchObject({ title: "list files (@explore subagent)", agent: "explore" });
    // The member wrote this prompt (an `@explore` message): the child's message stays theirs.
    const [childFirst] = child ? await Session.allMessages(ctx, child.id) : [];
    expect(childFirst?.info.role === "user" && childFirst.info.delegatedBy).toBeUndefined();
    const messages = await Session.allMessages(ctx, parent.id);
    expect(messages[0]?.parts.map((p) => p.type)).toEqual(["subtask"]);
    const [task] = taskParts(messages);
    expect(task?.state.status).toBe("completed");
    expect(task?.state.status === "completed" && task.state.metadata).toMatchObject({ sessionId: child?.id, summary: [{ tool: "list", state: { status: "completed" } }] });
    const replies = messages.filter((m) => m.info.role === "assistant");
    expect(replies.length).toBeGreaterThanOrEqual(2);
    const last = replies.at(-1)?.info;
    expect(last?.role === "assistant" && [last.finish, last.error]).toEqual(["stop", undefined]);
    // The model's request after the subtask holds the task call and its result.
    const after = calls.findLast((call) => JSON.stringify(call.prompt).includes("<task_result>"));
    expect(after).toBeDefined();
  });

  it("runs an agent of the configuration with its prompt, its tools and its rules; the task tool offers it", async () => {
    const parent = await ask("@reviewer read README.md");
    await idle(parent.id);
    const [child] = await Session.children(ctx, parent.id);
    expect(child).toMatchObject({ title: "read README.md (@reviewer subagent)", agent: "reviewer" });
    const first = calls.find((call) => userTexts(call).join() === "read README.md");
    if (!first) throw new Error("the reviewer made no model request");
    // Its tools are its list, less what its rules deny (grep).
    expect(toolNames(first)).toEqual(["list", "read"]);
    expect(JSON.stringify(first.prompt[0])).toContain("You review code: list what to fix");
    const parentRequest = calls.find((call) => toolNames(call).includes("task"));
    const taskTool = parentRequest?.tools?.find((t) => t.name === "task");
    expect(taskTool?.type === "function" && taskTool.description).toContain("- reviewer: Reviews code and says what to fix.");
  });

  it("task_id continues in the same child session", async () => {
    const parent = await ask("use a subagent to list files");
    await idle(parent.id);
    const [child] = await Session.children(ctx, parent.id);
    if (!child) throw new Error("no child");
    const progress: unknown[] = [];
    const result = await ctx.subagents.run(
      callerOf(parent),
      { description: "read it", prompt: "read README.md", agent: "general", taskId: child.id },
      { signal: new AbortController().signal, progress: (metadata) => progress.push(metadata) },
    );
    expect(result.sessionId).toBe(child.id);
    expect(result.summary.map((c) => c.tool)).toEqual(["read"]);
    expect(progress.length).toBeGreaterThan(0);
    const users = (await Session.allMessages(ctx, child.id)).filter((m) => m.info.role === "user");
    expect(users).toHaveLength(2);
    expect(await Session.children(ctx, parent.id)).toHaveLength(1);
    // Another session's child, or an unknown id, is refused.
    const other = await ask("list files");
    await idle(other.id);
    await expect(
      ctx.subagents.run(callerOf(other), { description: "x", prompt: "list files", agent: "general", taskId: child.id }, { signal: new AbortController().signal, progress: () => {} }),
    ).rejects.toThrow(/not a subagent session of this session/);
    await expect(
      ctx.subagents.run(callerOf(parent), { description: "x", prompt: "list files", agent: "nobody" }, { signal: new AbortController().signal, progress: () => {} }),
    ).rejects.toThrow(/There is no subagent "nobody"/);
  });
});
