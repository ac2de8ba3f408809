import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTools, executeTool } from "./registry";
import { fakeContext, eachTempProject } from "../../test/tools";
import { define, ToolError } from "./tool";

const t = eachTempProject();

const byId = (id: string) => {
  const tool = builtinTools().find((x) => x.id === id);
  if (!tool) throw new Error(`no tool ${id}`);
  return tool;
};

describe("builtinTools", () => {
  it("lists every built-in tool once, each with a description and a JSON-schema-convertible input", () => {
    const tools = builtinTools();
    expect(tools.map((x) => x.id)).toEqual(["read", "list", "glob", "grep", "write", "edit", "bash", "todowrite", "todoread", "task"]);
    for (const tool of tools) {
      expect(tool.description.length).toBeGreaterThan(20);
      expect(z.toJSONSchema(tool.parameters, { io: "input" })).toMatchObject({ type: "object" });
    }
  });
});

describe("executeTool", () => {
  it("rejects invalid input with a readable list of issues", async () => {
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const error = await executeTool(byId("read"), { filePath: 3, limit: -1 }, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid input for the read tool:\n- filePath: .+\n- limit: .+\nPlease fix the arguments and call the tool again\.$/);
    await expect(executeTool(byId("bash"), { command: "true", timeout: 700_000 }, ctx)).rejects.toThrow(/- timeout: /);
    expect(ctx.requests).toEqual([]);
  });

  it("truncates a long output, saving the full text and recording the path in metadata", async () => {
    const full = Array.from({ length: 2500 }, (_, i) => `row ${i}`).join("\n");
    const noisy = define({
      id: "noisy",
      description: "prints a lot",
      parameters: z.object({}),
      execute: async () => ({ title: "noisy", output: full, metadata: { kept: true } }),
    });
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, callId: "call_noisy" });
    const result = await executeTool(noisy, {}, ctx);
    const saved = path.join(ctx.outputDir, "call_noisy.txt");
    expect(result.metadata).toEqual({ kept: true, truncated: true, outputPath: saved });
    expect(result.output).toContain("...500 lines truncated...");
    expect(await fs.readFile(saved, "utf8")).toBe(full);
  });

  it("lets the session read and search its own saved output with no question, and no other session", async () => {
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, callId: "call_long" });
    const long = await executeTool(byId("bash"), { command: "seq 1 3000" }, ctx);
    const saved = String(long.metadata.outputPath);
    expect(long.output).toContain(`Full output saved to: ${saved}`);
    ctx.requests.length = 0;
    expect((await executeTool(byId("read"), { filePath: saved, offset: 2999 }, ctx)).output).toContain("03000| 3000");
    expect((await executeTool(byId("grep"), { pattern: "^2999$", path: saved }, ctx)).output).toContain("Line 2999: 2999");
    expect((await executeTool(byId("bash"), { command: `tail -n 1 ${saved}` }, ctx)).output).toBe("3000");
    // No external_directory question; read and grep ask only what their rules allow.
    expect(ctx.requests.filter((r) => r.permission === "external_directory")).toEqual([]);
    expect(ctx.requests.every((r) => r.permission === "bash" || ctx.check(r.permission, r.patterns[0] ?? "") === "allow")).toBe(true);

    const other = fakeContext({ directory: t.project, dataDir: t.dataDir, sessionId: "ses_other" });
    await expect(executeTool(byId("read"), { filePath: saved }, other)).rejects.toThrow(/Access denied/);
    await expect(executeTool(byId("grep"), { pattern: "3000", path: saved }, other)).rejects.toThrow(/Access denied/);
    const viaShell = await executeTool(byId("bash"), { command: `cat ${saved}` }, other);
    expect(viaShell.output).toMatch(/No such file or directory/);
    expect(other.requests.filter((r) => r.permission === "external_directory")).toEqual([]);
  });

  it("leaves read's self-bounded output alone and keeps the end of bash output", async () => {
    await fs.writeFile(path.join(t.project, "long.txt"), Array.from({ length: 5000 }, (_, i) => `l${i}`).join("\n"));
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const read = await executeTool(byId("read"), { filePath: "long.txt" }, ctx);
    expect(read.metadata.outputPath).toBeUndefined();
    expect(read.output).toContain("use offset=2001");
    const bash = await executeTool(byId("bash"), { command: "seq 1 3000" }, ctx);
    expect(bash.output.startsWith("...1000 lines truncated...\n\n1001\n")).toBe(true);
    expect(bash.metadata.outputPath).toBe(path.join(ctx.outputDir, "call_test.txt"));
  });

  it("runs the todo tools through ctx.todos and validates todos", async () => {
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const todos = [
      { id: "1", content: "write tests", status: "in_progress", priority: "high" },
      { id: "2", content: "ship", status: "pending", priority: "low" },
    ];
    const written = await executeTool(byId("todowrite"), { todos }, ctx);
    expect(ctx.stored).toEqual(todos);
    expect(written.title).toBe("2 todos open");
    const readBack = await executeTool(byId("todoread"), {}, ctx);
    expect(JSON.parse(readBack.output)).toEqual(todos);
    expect(readBack.metadata).toEqual({ todos });
    await expect(executeTool(byId("todowrite"), { todos: [{ ...todos[0], status: "done" }] }, ctx)).rejects.toThrow(/- todos\.0\.status: /);
    ctx.stored = [];
    expect((await executeTool(byId("todoread"), {}, ctx)).output).toBe("The todo list is empty.");
  });
});
