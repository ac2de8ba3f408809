import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { makeTeam } from "../../test/db";
import { testServices } from "../../test/runtime";
import { echo, script, streamedText, usage } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import { ProjectGit } from "../project/git";
import { Workspaces } from "./workspace";
import * as Prompt from "../session/prompt";
import { Session } from "../session";

/**
 * A session's working tree is made when the session first needs files (SPEC §15), not at
 * its prompt: an answer without tools makes none (no checkout, no branch), yet it reads the
 * repository's rule files (from the base commit); the first tool makes it.
 */

const dataDir = mkdtempSync(path.join(os.tmpdir(), "parley-ws-lazy-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const text = (words: string) => [{ type: "stream-start" as const, warnings: [] }, ...streamedText("t", words), { type: "finish" as const, finishReason: { unified: "stop" as const, raw: "stop" }, usage: usage(10, 2) }];

describe("workspaces are made when first needed", () => {
  it("a tool-less answer makes no working tree but reads AGENTS.md from the base; the first tool makes it", async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), "parley-ws-lazy-project-"));
    writeFileSync(path.join(directory, "AGENTS.md"), "Lazy rule: be brief.\n");
    const model = script([
      text("hello"),
      [
        { type: "stream-start", warnings: [] },
        { type: "tool-call", toolCallId: "c1", toolName: "echo", input: '{"text":"hi"}' },
        { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usage(10, 2) },
      ],
      text("done"),
    ]);
    const services = testServices(new Bus(), {
      models: { resolve: (ref) => ({ ref, language: model, limit: { context: 100_000, output: 4_000 }, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }), default: () => ({ providerId: "test", modelId: "scripted" }) },
      settings: { dataDir, forbidden: [dataDir], limits: { spareWorkspaces: 0 }, compaction: { auto: false, prune: false } },
      tools: [echo],
      executeTool: (t, input, ctx) => t.execute(t.parameters.parse(input), ctx),
    });
    const { ctx, projectId } = await makeTeam({ services, directory });
    const session = await Session.create(ctx, { projectId, title: "lazy" });
    const workspaceId = session.workspaceId ?? "";
    const row = () => ctx.db.workspace.findUniqueOrThrow({ where: { id: workspaceId } });

    await Prompt.prompt(ctx, { sessionId: session.id, parts: [{ type: "text", text: "say hello" }] });
    await services.runners.idle(session.id);
    const system = JSON.stringify(model.doStreamCalls[0]?.prompt.filter((m) => m.role === "system"));
    expect(system).toContain("Lazy rule: be brief.");
    expect((await row()).state).toBe("pending");
    expect(await ctx.workspaces.isReady(workspaceId)).toBe(false);
    expect(existsSync((await row()).directory)).toBe(false);

    await Prompt.prompt(ctx, { sessionId: session.id, parts: [{ type: "text", text: "echo hi" }] });
    await services.runners.idle(session.id);
    expect((await row()).state).toBe("ready");
    expect(existsSync(path.join((await row()).directory, "AGENTS.md"))).toBe(true);
    rmSync(directory, { recursive: true, force: true });
  });

  it("a later tool-less answer of a session starts no git process: the base commit is read from the project's refs, once for the step's agent and rule files, with the step's read of its session", async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), "parley-ws-lazy-project-"));
    writeFileSync(path.join(directory, "AGENTS.md"), "Lazy rule: no git.\n");
    const model = script([text("one"), text("two")]);
    const services = testServices(new Bus(), {
      models: { resolve: (ref) => ({ ref, language: model, limit: { context: 100_000, output: 4_000 }, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }), default: () => ({ providerId: "test", modelId: "scripted" }) },
      settings: { dataDir, forbidden: [dataDir], limits: { spareWorkspaces: 0 }, compaction: { auto: false, prune: false } },
    });
    const { ctx, projectId } = await makeTeam({ services, directory });
    const session = await Session.create(ctx, { projectId, title: "no git" });
    await Prompt.prompt(ctx, { sessionId: session.id, parts: [{ type: "text", text: "first" }] });
    await services.runners.idle(session.id);
    const gitCalls = vi.spyOn(ProjectGit.prototype, "exec");
    const bases = vi.spyOn(Workspaces.prototype, "resolveBase");
    const raw = vi.spyOn(services.db, "$queryRaw");
    try {
      await Prompt.prompt(ctx, { sessionId: session.id, parts: [{ type: "text", text: "second" }] });
      await services.runners.idle(session.id);
      expect(JSON.stringify(model.doStreamCalls[1]?.prompt.filter((m) => m.role === "system"))).toContain("Lazy rule: no git.");
      expect(gitCalls.mock.calls.map(([args]) => args.join(" "))).toEqual([]);
      // The step's agent files and rule files are read through one reader: its workspace row and base are looked up once.
      expect(bases).toHaveBeenCalledTimes(1);
      // …and the workspace's row comes with the step's read of its session: no statement of its own.
      const statements = raw.mock.calls.map(([sql]) => (Array.isArray(sql) ? sql.join("?") : String(sql)));
      expect(statements.some((sql) => sql.includes('LEFT JOIN "Workspace" w'))).toBe(true);
      expect(statements.filter((sql) => sql.includes('FROM "Workspace" w'))).toEqual([]);
    } finally {
      gitCalls.mockRestore();
      bases.mockRestore();
      raw.mockRestore();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("a revert of a tool-less turn makes the tree it restores (and the files are the base's)", async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), "parley-ws-lazy-revert-"));
    writeFileSync(path.join(directory, "kept.txt"), "kept\n");
    const model = script([text("hello")]);
    const services = testServices(new Bus(), {
      models: { resolve: (ref) => ({ ref, language: model, limit: { context: 100_000, output: 4_000 }, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }), default: () => ({ providerId: "test", modelId: "scripted" }) },
      settings: { dataDir, forbidden: [dataDir], limits: { spareWorkspaces: 0 }, compaction: { auto: false, prune: false } },
    });
    const { ctx, projectId } = await makeTeam({ services, directory });
    const session = await Session.create(ctx, { projectId, title: "lazy revert" });
    const user = await Prompt.prompt(ctx, { sessionId: session.id, parts: [{ type: "text", text: "say hello" }] });
    await services.runners.idle(session.id);
    expect(await ctx.workspaces.isReady(session.workspaceId ?? "")).toBe(false);
    const reverted = await Session.revert(ctx, { sessionId: session.id, messageId: user.id });
    expect(reverted.revert?.messageId).toBe(user.id);
    const row = await ctx.db.workspace.findUniqueOrThrow({ where: { id: session.workspaceId ?? "" } });
    expect(row.state).toBe("ready");
    expect(readFileSync(path.join(row.directory, "kept.txt"), "utf8")).toBe("kept\n");
    expect((await Session.unrevert(ctx, { sessionId: session.id })).revert).toBeUndefined();
    rmSync(directory, { recursive: true, force: true });
  });
});
