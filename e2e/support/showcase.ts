import { unifiedDiff } from "../../server/tool/diff";
import type { Seeder } from "./seed";

const GREET_BEFORE = "export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n";
const GREET_AFTER = `${GREET_BEFORE}\nexport function farewell(name: string): string {\n  return \`Goodbye, \${name}!\`;\n}\n`;

/** Markup that must reach the page as text, never as HTML. */
export const HOSTILE_MARKDOWN = [
  "Raw HTML in markdown must stay text:",
  "",
  '<script>window.__parleyXss = "script"</script>',
  "",
  '<b data-testid="raw-html">not bold</b> <img src="x" onerror="window.__parleyXss = \'img\'"> [a link](javascript:window.__parleyXss=\'link\')',
].join("\n");

const MARKDOWN_ANSWER = `## Done

I added \`farewell\` next to \`greet\` and a test for both:

- \`src/greet.ts\` exports **farewell(name)**
- \`src/greet.test.ts\` covers both helpers

\`\`\`ts
export function farewell(name: string): string {
  return \`Goodbye, \${name}!\`;
}
\`\`\`

| file | change |
| --- | --- |
| src/greet.ts | +3 |
| src/greet.test.ts | +12 |
`;

const tokens = (input: number, output: number, reasoning = 0, read = 0, write = 0) => ({ input, output, reasoning, cache: { read, write } });

/**
 * A session holding every part type (12) and every tool state (4), plus stored errors:
 * what the parts e2e test checks and what docs/screenshot.png shows.
 */
export async function seedShowcase(seed: Seeder, title = "Add a farewell helper to greet.ts") {
  const session = await seed.session({ title });
  const t0 = Date.now() - 5 * 60_000;
  const sid = session.id;

  const ask = await seed.userMessage(sid, [
    { type: "text", text: "Add a `farewell(name)` function next to `greet` in **src/greet.ts**, with a test, then run the tests." },
    { type: "file", mime: "text/plain", filename: "greet.ts", url: "file:///project/src/greet.ts", source: { type: "file", path: "src/greet.ts" } },
    { type: "agent", name: "build" },
  ]);

  await seed.assistantMessage(
    sid,
    ask.id,
    [
      { type: "step-start", snapshot: "4b825dc642cb6eb9a060e54bf8d69288fbee4904" },
      {
        type: "reasoning",
        text: "The user wants a `farewell` helper. I should read `src/greet.ts` first, edit it, then run the test suite.",
        time: { start: t0, end: t0 + 2300 },
      },
      { type: "text", text: "I'll read the file first.", time: { start: t0 + 2300, end: t0 + 2500 } },
      {
        type: "tool",
        callId: "call_read",
        tool: "read",
        state: {
          status: "completed",
          input: { filePath: "src/greet.ts" },
          output: ["<file>", ...GREET_BEFORE.trimEnd().split("\n").map((line, i) => `${String(i + 1).padStart(5, "0")}| ${line}`), "", "(End of file - total 3 lines)", "</file>"].join("\n"),
          title: "src/greet.ts",
          metadata: {},
          time: { start: t0 + 2600, end: t0 + 2640 },
        },
      },
      {
        type: "tool",
        callId: "call_edit",
        tool: "edit",
        state: {
          status: "completed",
          input: {
            filePath: "src/greet.ts",
            oldString: "  return `Hello, ${name}!`;\n}",
            newString: "  return `Hello, ${name}!`;\n}\n\nexport function farewell(name: string): string {\n  return `Goodbye, ${name}!`;\n}",
          },
          output: "Edit applied successfully.",
          title: "src/greet.ts",
          metadata: { filePath: "src/greet.ts", existed: true, ...unifiedDiff("src/greet.ts", GREET_BEFORE, GREET_AFTER), replacements: 1 },
          time: { start: t0 + 2700, end: t0 + 2790 },
        },
      },
      {
        type: "tool",
        callId: "call_bash",
        tool: "bash",
        state: {
          status: "error",
          input: { command: "npm test", description: "Run the test suite" },
          error: "Command failed with exit code 1:\nError: Cannot find module 'vitest'",
          time: { start: t0 + 2800, end: t0 + 4000 },
        },
      },
      { type: "step-finish", reason: "tool-calls", cost: 0.0081, tokens: tokens(2400, 310, 120, 1800, 0) },
      { type: "patch", hash: "9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d", files: ["src/greet.ts", "src/greet.test.ts"] },
      { type: "snapshot", snapshot: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" },
      { type: "step-start", snapshot: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" },
      {
        type: "retry",
        attempt: 1,
        error: { name: "APIError", message: "Rate limit reached for requests. Please try again in 2s.", statusCode: 429, isRetryable: true },
        time: { created: t0 + 4200 },
      },
      { type: "text", text: MARKDOWN_ANSWER, time: { start: t0 + 6500, end: t0 + 7000 } },
      { type: "step-finish", reason: "stop", cost: 0.0042, tokens: tokens(2900, 260) },
    ],
    { cost: 0.0123, tokens: tokens(5300, 570, 120, 1800, 0) },
  );

  const child = await seed.session({ title: "Find callers of greet (@explore subagent)", parentId: sid });
  const delegate = await seed.userMessage(sid, [
    { type: "subtask", agent: "explore", description: "Find callers of greet", prompt: "List every file that calls `greet(` and how." },
  ]);
  await seed.assistantMessage(
    sid,
    delegate.id,
    [
      {
        type: "tool",
        callId: "call_task",
        tool: "task",
        state: {
          status: "completed",
          input: { description: "Find callers of greet", subagent_type: "explore", prompt: "List every file that calls `greet(`." },
          output: "`greet` is called from **src/index.ts** only.",
          title: "Find callers of greet",
          metadata: { sessionId: child.id, summary: [{ tool: "grep", state: { status: "completed", title: "greet\\(" } }] },
          time: { start: t0 + 9000, end: t0 + 15400 },
        },
      },
      { type: "text", text: "The subagent found one caller." },
    ],
    { cost: 0.0035, tokens: tokens(900, 80), error: { name: "AbortedError", message: "The response was stopped by the user." } },
  );

  const compact = await seed.userMessage(sid, [{ type: "compaction", auto: true, overflow: true }]);
  await seed.assistantMessage(sid, compact.id, [{ type: "text", text: "**Summary.** Added `farewell` to `src/greet.ts`; tests need `vitest` installed." }], {
    cost: 0.0012,
    tokens: tokens(4100, 90),
  });

  const hostile = await seed.userMessage(sid, [{ type: "text", text: HOSTILE_MARKDOWN }]);
  await seed.assistantMessage(sid, hostile.id, [], {
    error: { name: "APIError", message: "Internal server error", statusCode: 500, isRetryable: false, responseBody: '{"error":"upstream failed"}' },
  });

  const again = await seed.userMessage(sid, [{ type: "text", text: "Search for other helpers and fetch the style guide." }]);
  await seed.assistantMessage(
    sid,
    again.id,
    [
      { type: "step-start" },
      {
        type: "tool",
        callId: "call_grep",
        tool: "grep",
        state: { status: "running", input: { pattern: "export function", path: "src" }, title: "export function in src", time: { start: Date.now() } },
      },
      { type: "tool", callId: "call_fetch", tool: "webfetch", state: { status: "pending", input: { url: "https://example.com/style-guide" }, raw: '{"url":"https://example.com/style-guide"}' } },
    ],
    { completed: false },
  );

  await seed.db.session.update({
    where: { id: sid },
    data: { cost: 0.017, tokensInput: 10300, tokensOutput: 740, tokensReasoning: 120, tokensCacheRead: 1800 },
  });
  return { session, child };
}
