import { APICallError, type LanguageModelV4 } from "@ai-sdk/provider";
import { type ModelMessage, type TextStreamPart, type ToolSet, generateText, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { classify } from "../../session/classify";
import { delay, retryable } from "../../session/retry";
import { OFFLINE_LABEL, createOfflineModel } from "./model";
import { VERY_LONG_TOKENS, longText, veryLongText } from "./text";

/** The offline model driven through the real AI SDK `streamText`, as the prompt loop does. */

const FIXED = new Date("2026-01-01T00:00:00Z");
const fast = () => createOfflineModel({ tokensPerSecond: 0, now: () => FIXED });

/** Tools as the prompt loop declares them (OpenCode's parameter names), without execute. */
const declared = {
  list: tool({ description: "List a directory", inputSchema: z.object({ path: z.string().optional() }) }),
  read: tool({ description: "Read a file", inputSchema: z.object({ filePath: z.string() }) }),
  grep: tool({ description: "Search file contents", inputSchema: z.object({ pattern: z.string(), path: z.string().optional() }) }),
  glob: tool({ description: "Find files", inputSchema: z.object({ pattern: z.string(), path: z.string().optional() }) }),
  write: tool({ description: "Write a file", inputSchema: z.object({ filePath: z.string(), content: z.string() }) }),
  edit: tool({
    description: "Edit a file",
    inputSchema: z.object({ filePath: z.string(), oldString: z.string(), newString: z.string() }),
  }),
  bash: tool({ description: "Run a command", inputSchema: z.object({ command: z.string(), description: z.string() }) }),
  todowrite: tool({
    description: "Write the todo list",
    inputSchema: z.object({
      todos: z.array(
        z.object({
          id: z.string(),
          content: z.string(),
          status: z.enum(["pending", "in_progress", "completed", "cancelled"]),
          priority: z.enum(["high", "medium", "low"]),
        }),
      ),
    }),
  }),
  task: tool({
    description: "Run a subagent",
    inputSchema: z.object({ description: z.string(), prompt: z.string(), subagent_type: z.string() }),
  }),
} satisfies ToolSet;

const FILES: Record<string, string> = {
  "a.txt": "alpha is the first line\nbeta second\ngamma third\n",
  "README.md": "# Parley\nA team web app for agent sessions.\n",
};

/** The same tools with canned results, to see several steps. */
const executing = {
  list: tool({ ...declared.list, execute: async () => Object.keys(FILES).join("\n") }),
  read: tool({ ...declared.read, execute: async ({ filePath }) => FILES[filePath] ?? `File not found: ${filePath}` }),
  write: tool({ ...declared.write, execute: async ({ filePath, content }) => `Wrote ${content.length} bytes to ${filePath}` }),
} satisfies ToolSet;

type Part = TextStreamPart<ToolSet>;

async function collect(stream: AsyncIterable<Part>): Promise<{ parts: Part[]; thrown?: unknown }> {
  const parts: Part[] = [];
  try {
    for await (const part of stream) parts.push(part);
  } catch (error) {
    return { parts, thrown: error };
  }
  return { parts };
}

/** Event types with runs of the same delta type collapsed ("text-delta" once per run). */
function shape(parts: Part[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    const label = p.type === "tool-input-start" || p.type === "tool-call" ? `${p.type}:${p.toolName}` : p.type;
    if (label.endsWith("-delta") && out[out.length - 1] === label) continue;
    out.push(label);
  }
  return out;
}

const text = (parts: Part[]) => parts.map((p) => (p.type === "text-delta" ? p.text : "")).join("");
const calls = (parts: Part[]) =>
  parts.flatMap((p) => (p.type === "tool-call" ? [{ toolName: p.toolName, input: p.input as unknown }] : []));
const silent = { onError: () => undefined, maxRetries: 0 };

describe("offline model through streamText", () => {
  it("is a LanguageModelV4 with a label for the UI", () => {
    const model: LanguageModelV4 = createOfflineModel();
    expect(model).toMatchObject({ specificationVersion: "v4", provider: "offline", modelId: "parley-offline" });
    expect(OFFLINE_LABEL).toBe("Offline model (built in, no network)");
  });

  it("streams reasoning, text in several deltas and two tool calls in one step", async () => {
    const result = streamText({ model: fast(), prompt: "list files and read README.md", tools: declared, ...silent });
    const { parts, thrown } = await collect(result.fullStream);
    expect(thrown).toBeUndefined();
    expect(shape(parts)).toEqual([
      "start",
      "start-step",
      "reasoning-start",
      "reasoning-delta",
      "reasoning-end",
      "text-start",
      "text-delta",
      "text-end",
      "tool-input-start:list",
      "tool-input-delta",
      "tool-input-end",
      "tool-call:list",
      "tool-input-start:read",
      "tool-input-delta",
      "tool-input-end",
      "tool-call:read",
      "finish-step",
      "finish",
    ]);
    expect(parts.filter((p) => p.type === "text-delta").length).toBeGreaterThan(3);
    expect(parts.filter((p) => p.type === "tool-input-delta").length).toBeGreaterThan(1);
    expect(text(parts)).toBe("I'll list the files and read `README.md`.");
    expect(calls(parts)).toEqual([
      { toolName: "list", input: { path: "." } },
      { toolName: "read", input: { filePath: "README.md" } },
    ]);
    const ids = parts.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []));
    expect(new Set(ids).size).toBe(2);
    const finish = parts.find((p) => p.type === "finish-step");
    expect(finish).toMatchObject({ finishReason: "tool-calls" });
    const reasoning = parts.map((p) => (p.type === "reasoning-delta" ? p.text : "")).join("");
    expect(reasoning).toContain("list the files and read README.md");
  });

  it("builds each tool's input from the request", async () => {
    const cases: Array<[string, { toolName: string; input: unknown }]> = [
      ["grep TODO in src", { toolName: "grep", input: { pattern: "TODO", path: "src" } }],
      ["find *.ts", { toolName: "glob", input: { pattern: "*.ts" } }],
      ["write notes.txt: hello world", { toolName: "write", input: { filePath: "notes.txt", content: "hello world\n" } }],
      [
        "edit notes.txt replace hello with goodbye",
        { toolName: "edit", input: { filePath: "notes.txt", oldString: "hello", newString: "goodbye" } },
      ],
      ["run ls -la", { toolName: "bash", input: { command: "ls -la", description: "Run ls -la" } }],
      [
        "use a subagent to read README.md",
        { toolName: "task", input: { description: "read README.md", prompt: "read README.md", subagent_type: "general" } },
      ],
      [
        "todo write tests, fix the bug",
        {
          toolName: "todowrite",
          input: {
            todos: [
              { id: "1", content: "write tests", status: "in_progress", priority: "high" },
              { id: "2", content: "fix the bug", status: "pending", priority: "medium" },
            ],
          },
        },
      ],
    ];
    for (const [prompt, expected] of cases) {
      const { parts } = await collect(streamText({ model: fast(), prompt, tools: declared, ...silent }).fullStream);
      expect(calls(parts), prompt).toEqual([expected]);
    }
  });

  it("runs a multi-step request one step at a time and summarises the results", async () => {
    const result = streamText({
      model: fast(),
      prompt: "read a.txt then write b.txt: hello",
      tools: executing,
      stopWhen: stepCountIs(5),
      ...silent,
    });
    const { parts, thrown } = await collect(result.fullStream);
    expect(thrown).toBeUndefined();
    const steps = await result.steps;
    expect(steps.map((s) => s.finishReason)).toEqual(["tool-calls", "tool-calls", "stop"]);
    expect(steps.map((s) => s.toolCalls.map((c) => c.toolName))).toEqual([["read"], ["write"], []]);
    expect(steps[1]?.toolCalls[0]?.input).toEqual({ filePath: "b.txt", content: "hello\n" });
    // Step 2 reports step 1 before its call; step 3 summarises everything, quoting the file.
    expect(steps[1]?.text).toContain("alpha is the first line");
    expect(steps[1]?.text).toContain("Next I'll write `b.txt`.");
    const final = steps[2]?.text ?? "";
    expect(final).toContain("Done — 2 tool calls");
    expect(final).toContain("alpha is the first line");
    expect(final).toContain("Wrote 6 bytes to b.txt");
    expect(parts.filter((p) => p.type === "finish-step")).toHaveLength(3);
  });

  it("answers with a summary once the results of its calls are in the prompt", async () => {
    const messages: ModelMessage[] = [
      { role: "user", content: "read a.txt" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "read", input: { filePath: "a.txt" } }] },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: FILES["a.txt"] ?? "" } }],
      },
    ];
    const { parts } = await collect(streamText({ model: fast(), messages, tools: declared, ...silent }).fullStream);
    expect(calls(parts)).toEqual([]);
    expect(parts.find((p) => p.type === "finish-step")).toMatchObject({ finishReason: "stop" });
    expect(text(parts)).toContain("**read** `a.txt` starts with:");
    expect(text(parts)).toContain("alpha is the first line");
  });

  it("reports a failed tool call in its summary", async () => {
    const messages: ModelMessage[] = [
      { role: "user", content: "run false" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "bash", input: { command: "false" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "error-text", value: "exit code 1" } }] },
    ];
    const { parts } = await collect(streamText({ model: fast(), messages, tools: declared, ...silent }).fullStream);
    expect(text(parts)).toContain("1 failed");
    expect(text(parts)).toContain("failed: exit code 1");
  });

  it("only calls tools it is offered and says which one it would need", async () => {
    const onlyRead = { read: declared.read };
    const { parts } = await collect(streamText({ model: fast(), prompt: "run ls and read a.txt", tools: onlyRead, ...silent }).fullStream);
    expect(calls(parts)).toEqual([]); // "run" swallows "and read a.txt" as part of the command
    expect(text(parts)).toContain("I would need the `bash` tool");

    const mixed = await collect(streamText({ model: fast(), prompt: "list files and read a.txt", tools: onlyRead, ...silent }).fullStream);
    expect(calls(mixed.parts)).toEqual([{ toolName: "read", input: { filePath: "a.txt" } }]);
    expect(text(mixed.parts)).toContain("I would need the `list` tool to list the files");

    const none = await collect(streamText({ model: fast(), prompt: "use a subagent to read README.md", ...silent }).fullStream);
    expect(calls(none.parts)).toEqual([]);
    expect(text(none.parts)).toContain("I would need the `task` tool");
    expect(none.parts.find((p) => p.type === "finish-step")).toMatchObject({ finishReason: "stop" });
  });

  it("explains what it understands when the message has no command", async () => {
    const { parts } = await collect(streamText({ model: fast(), prompt: "hello!", tools: declared, ...silent }).fullStream);
    expect(calls(parts)).toEqual([]);
    expect(text(parts)).toContain("built-in offline model");
    expect(text(parts)).toContain("`read README.md`");
    expect(parts.some((p) => p.type === "reasoning-delta")).toBe(true);
  });

  it("is deterministic: the same prompt gives the same stream", async () => {
    const run = async () =>
      (await collect(streamText({ model: fast(), prompt: "list files and read README.md then run ls", tools: declared, ...silent }).fullStream)).parts;
    const [first, second] = await Promise.all([run(), run()]);
    // Everything but the SDK's own timing measurements.
    const json = (parts: Part[]) => JSON.stringify(parts, (key, value: unknown) => (key === "performance" ? undefined : value));
    expect(json(second)).toBe(json(first));
    expect(json(first)).toContain("call_");
  });

  it("streams a long answer in many chunks and estimates usage from characters", async () => {
    const result = streamText({ model: fast(), prompt: "write a long answer", tools: declared, ...silent });
    const { parts } = await collect(result.fullStream);
    const deltas = parts.filter((p) => p.type === "text-delta");
    expect(deltas.length).toBeGreaterThan(100);
    const answer = text(parts);
    expect(answer.length).toBeGreaterThan(2000);
    const usage = await result.usage;
    const reasoning = parts.map((p) => (p.type === "reasoning-delta" ? p.text : "")).join("");
    expect(usage.outputTokenDetails.reasoningTokens).toBe(Math.ceil(reasoning.length / 4));
    expect(usage.outputTokenDetails.textTokens).toBe(Math.ceil(answer.length / 4));
    expect(usage.outputTokens).toBe(Math.ceil(reasoning.length / 4) + Math.ceil(answer.length / 4));
    expect(usage.inputTokens).toBe(Math.ceil("write a long answer".length / 4));
    expect(usage.inputTokenDetails).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("streams a very long answer: about 10,000 tokens of markdown, exactly the deterministic text", async () => {
    const prompt = "write a very long answer";
    const result = streamText({ model: fast(), prompt, tools: declared, ...silent });
    const { parts } = await collect(result.fullStream);
    const answer = text(parts);
    expect(answer).toBe(veryLongText(prompt));
    expect(answer).not.toBe(longText(prompt));
    // Markdown a renderer has to work on: headings, lists, fenced code, quotes, tables.
    for (const construct of [/^## \d+\. /m, /^### /m, /^- /m, /^1\. /m, /^```ts$/m, /^```bash$/m, /^```json$/m, /^> /m, /^\| --- \|/m]) {
      expect(answer).toMatch(construct);
    }
    expect(answer).toBe(answer.trimEnd());
    expect(parts.filter((p) => p.type === "text-delta").length).toBeGreaterThan(2_000);
    const usage = await result.usage;
    expect(Math.abs((usage.outputTokens ?? 0) - VERY_LONG_TOKENS)).toBeLessThan(100);
    expect(usage.outputTokenDetails.textTokens).toBe(Math.ceil(answer.length / 4));
    // The same words every time.
    expect(veryLongText(prompt)).toBe(answer);
  });

  it('reports a nearly full context for "fill the context"', async () => {
    const result = streamText({ model: fast(), prompt: "fill the context", ...silent });
    await collect(result.fullStream);
    expect((await result.usage).inputTokens).toBe(31_000);
  });

  it("paces its output by tokensPerSecond", async () => {
    const model = createOfflineModel({ tokensPerSecond: 200 });
    const started = Date.now();
    const { parts } = await collect(streamText({ model, prompt: "list files", tools: declared, ...silent }).fullStream);
    const elapsed = Date.now() - started;
    const chars = parts.reduce(
      (n, p) => n + (p.type === "text-delta" || p.type === "reasoning-delta" ? p.text.length : p.type === "tool-input-delta" ? p.delta.length : 0),
      0,
    );
    // ~4 characters per token at 200 tokens/s.
    expect(elapsed).toBeGreaterThanOrEqual(((chars / 4) * 1000) / 200 * 0.8);
  });

  it("also answers through generateText (doGenerate)", async () => {
    const result = await generateText({ model: fast(), prompt: "list files and read README.md", tools: declared, ...silent });
    expect(result.reasoningText).toContain("list the files");
    expect(result.text).toBe("I'll list the files and read `README.md`.");
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
      ["list", { path: "." }],
      ["read", { filePath: "README.md" }],
    ]);
    expect(result.finishReason).toBe("tool-calls");
  });

  it("writes a title when asked for one and summarises the conversation for compaction", async () => {
    const title = await generateText({
      model: fast(),
      system: "Generate a short title for this conversation.",
      prompt: "list files and read README.md please",
      ...silent,
    });
    expect(title.text).toBe("List files and read README.md please");

    const messages: ModelMessage[] = [
      { role: "user", content: "read a.txt" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "read", input: { filePath: "a.txt" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: "alpha" } }] },
      { role: "assistant", content: "Done." },
      { role: "user", content: "What did we do so far?" },
    ];
    const summary = await generateText({ model: fast(), messages, ...silent });
    expect(summary.text).toContain("- read a.txt");
    expect(summary.text).toContain("- read `a.txt` (done)");

    // After a compaction, "fill the context" no longer reports a full window (no compaction loop)
    // and "Continue…" gets a short answer.
    const after: ModelMessage[] = [...messages, { role: "assistant", content: summary.text }];
    const fill = await generateText({ model: fast(), messages: [...after, { role: "user", content: "fill the context" }], ...silent });
    expect(fill.usage.inputTokens).toBeLessThan(1000);
    const go = await generateText({ model: fast(), messages: [...after, { role: "user", content: "Continue if you have next steps" }], ...silent });
    expect(go.text).toContain("send me the next request");
  });
});

describe("offline model failure injection", () => {
  it('"fail with 429" is a retryable APICallError with a retry-after header', async () => {
    const { parts, thrown } = await collect(streamText({ model: fast(), prompt: "fail with 429", ...silent }).fullStream);
    expect(thrown).toBeUndefined();
    const error = parts.find((p) => p.type === "error")?.error;
    expect(APICallError.isInstance(error)).toBe(true);
    if (!APICallError.isInstance(error)) return;
    expect(error.statusCode).toBe(429);
    expect(error.responseHeaders).toEqual({ "retry-after": "1" });
    expect(error.isRetryable).toBe(true);
    // What the processor makes of it: retry after the header's second.
    const classified = classify(error, "offline");
    expect(retryable(classified)).toBeDefined();
    expect(delay(1, classified)).toBe(1000);
  });

  it('"fail with 500" is retryable and fails every attempt', async () => {
    const model = fast();
    for (let attempt = 0; attempt < 3; attempt++) {
      const { parts } = await collect(streamText({ model, prompt: "fail with 500", ...silent }).fullStream);
      const error = parts.find((p) => p.type === "error")?.error;
      expect(APICallError.isInstance(error) && error.statusCode).toBe(500);
      expect(APICallError.isInstance(error) && error.isRetryable).toBe(true);
      expect(parts.some((p) => p.type === "text-delta")).toBe(false);
    }
  });

  it('"fail once with 500" fails the first attempt only, then answers and does the rest', async () => {
    const model = fast();
    const prompt = "fail once with 500 and list files";
    const first = await collect(streamText({ model, prompt, tools: declared, ...silent }).fullStream);
    expect(first.parts.find((p) => p.type === "error")).toBeDefined();
    const second = await collect(streamText({ model, prompt, tools: declared, ...silent }).fullStream);
    expect(second.parts.find((p) => p.type === "error")).toBeUndefined();
    expect(text(second.parts)).toContain("only happens on the first attempt");
    expect(calls(second.parts)).toEqual([{ toolName: "list", input: { path: "." } }]);
    // The count is per prompt: another conversation fails once too.
    const other = await collect(streamText({ model, prompt: "fail once with 500", ...silent }).fullStream);
    expect(other.parts.find((p) => p.type === "error")).toBeDefined();
  });

  it('"fail once" also works through streamText\'s own retry', async () => {
    const result = streamText({ model: fast(), prompt: "fail once with 429", maxRetries: 1, onError: () => undefined });
    const { parts } = await collect(result.fullStream);
    expect(parts.find((p) => p.type === "error")).toBeUndefined();
    expect(text(parts)).toContain("This attempt went through");
  });

  it('"context overflow" is a 400 that is not retried', async () => {
    const { parts } = await collect(streamText({ model: fast(), prompt: "context overflow", ...silent }).fullStream);
    const error = parts.find((p) => p.type === "error")?.error;
    expect(APICallError.isInstance(error) && error.statusCode).toBe(400);
    expect(APICallError.isInstance(error) && error.isRetryable).toBe(false);
    expect(classify(error, "offline").name).toBe("ContextOverflowError");
  });

  it('"hang" streams some text, then waits until aborted and ends promptly', async () => {
    const controller = new AbortController();
    const result = streamText({ model: createOfflineModel({ tokensPerSecond: 0 }), prompt: "hang", abortSignal: controller.signal, ...silent });
    const parts: Part[] = [];
    let abortedAt = 0;
    const consumed = (async () => {
      for await (const part of result.fullStream) {
        parts.push(part);
        if (part.type === "text-delta" && text(parts).endsWith("aborted…")) {
          // Everything it had to say is out; now it hangs.
          setTimeout(() => {
            abortedAt = Date.now();
            controller.abort();
          }, 100);
        }
      }
    })();
    await consumed;
    expect(abortedAt).toBeGreaterThan(0);
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(text(parts)).toContain("Simulating a hang");
    expect(parts.some((p) => p.type === "text-end")).toBe(false);
    expect(parts[parts.length - 1]?.type).toBe("abort");
  });

  it("stops a slow stream promptly when aborted", async () => {
    const controller = new AbortController();
    const model = createOfflineModel({ tokensPerSecond: 100 });
    const result = streamText({ model, prompt: "write a long answer", abortSignal: controller.signal, ...silent });
    const parts: Part[] = [];
    let abortedAt = 0;
    for await (const part of result.fullStream) {
      parts.push(part);
      if (part.type === "text-delta" && abortedAt === 0) {
        abortedAt = Date.now();
        controller.abort();
      }
    }
    expect(Date.now() - abortedAt).toBeLessThan(300);
    // The answer has hundreds of chunks; only those already in flight arrive.
    expect(parts.filter((p) => p.type === "text-delta").length).toBeLessThan(10);
    expect(parts[parts.length - 1]?.type).toBe("abort");
  });

  it('"drop the connection" breaks off mid-text with a connection reset', async () => {
    const { parts, thrown } = await collect(streamText({ model: fast(), prompt: "drop the connection", ...silent }).fullStream);
    const error = thrown ?? parts.find((p) => p.type === "error")?.error;
    expect(error).toMatchObject({ code: "ECONNRESET", message: expect.stringContaining("socket hang up") });
    expect(parts.filter((p) => p.type === "text-delta").length).toBeGreaterThan(1);
    expect(parts.some((p) => p.type === "text-end")).toBe(false);
    const classified = classify(error, "offline");
    expect(classified).toMatchObject({ name: "APIError", isRetryable: true });
    expect(retryable(classified)).toBeDefined();
  });

  it('"drop the connection once" recovers on the next attempt', async () => {
    const model = fast();
    const first = await collect(streamText({ model, prompt: "drop the connection once", ...silent }).fullStream);
    expect(first.thrown ?? first.parts.find((p) => p.type === "error")).toBeDefined();
    const second = await collect(streamText({ model, prompt: "drop the connection once", ...silent }).fullStream);
    expect(second.thrown).toBeUndefined();
    expect(text(second.parts)).toContain("dropped connection only happens on the first attempt");
  });
});
