import { describe, expect, it } from "vitest";
import { type PartInput, historyBuilder } from "../../test/history";
import type { MessageError, WithParts } from "./message";
import { emptyTokens } from "./message";
import { CLEARED_OUTPUT, COMPACTION_QUESTION, INTERRUPTED, imageNote, toModelMessages } from "./model-messages";

/** toModelMessages, rule by rule. */

const { user, assistant: answer } = historyBuilder();

/** An answer with `parts` (to a question toModelMessages does not look at), failed with `error` when given. */
const assistant = (parts: PartInput[], error?: MessageError): WithParts => answer(user([]), parts, error ? { error } : {});

const text = (t: string, extra: { ignored?: boolean; synthetic?: boolean } = {}) => ({ type: "text" as const, text: t, ...extra });
const completed = (callId: string, output: string, compacted?: number) => ({
  type: "tool" as const,
  callId,
  tool: "read",
  state: { status: "completed" as const, input: { path: "a.ts" }, output, title: "a.ts", metadata: {}, time: { start: 1, end: 2, ...(compacted ? { compacted } : {}) } },
});

describe("toModelMessages", () => {
  it("turns a plain exchange into user and assistant messages", () => {
    const out = toModelMessages([user([text("hi")]), assistant([{ type: "step-start" }, text("hello"), { type: "step-finish", reason: "stop", cost: 0, tokens: emptyTokens() }])]);
    expect(out).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "hello" }] },
    ]);
  });

  it("skips messages with no parts", () => {
    expect(toModelMessages([user([]), assistant([]), user([text("x")])])).toEqual([{ role: "user", content: [{ type: "text", text: "x" }] }]);
  });

  it("drops ignored and empty user text (and a user message left with nothing)", () => {
    const out = toModelMessages([user([text("secret", { ignored: true }), text("   "), text(""), text("kept")]), user([text("", {}), text("x", { ignored: true })])]);
    expect(out).toEqual([{ role: "user", content: [{ type: "text", text: "kept" }] }]);
  });

  it("keeps synthetic user text", () => {
    expect(toModelMessages([user([text("from a tool", { synthetic: true })])])).toEqual([{ role: "user", content: [{ type: "text", text: "from a tool" }] }]);
  });

  it('turns a compaction part into the user text "What did we do so far?"', () => {
    const out = toModelMessages([user([{ type: "compaction", auto: true }])]);
    expect(out).toEqual([{ role: "user", content: [{ type: "text", text: COMPACTION_QUESTION }] }]);
    expect(COMPACTION_QUESTION).toBe("What did we do so far?");
  });

  it("skips assistant messages with an error", () => {
    for (const error of [
      { name: "APIError", message: "boom", isRetryable: false },
      { name: "UnknownError", message: "x" },
      { name: "ContextOverflowError", message: "too long" },
      { name: "AuthError", providerId: "openai", message: "key" },
    ] satisfies MessageError[]) {
      expect(toModelMessages([user([text("q")]), assistant([text("partial answer")], error)])).toHaveLength(1);
    }
  });

  it("keeps an aborted assistant message with real content, but not an empty one", () => {
    const aborted = { name: "AbortedError", message: "Aborted by the user" } as const;
    const kept = toModelMessages([user([text("q")]), assistant([{ type: "step-start" }, text("half an ans")], aborted)]);
    expect(kept.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "half an ans" }] });
    // Only a step-start, reasoning or blank text is not real content.
    const empty = toModelMessages([user([text("q")]), assistant([{ type: "step-start" }, { type: "reasoning", text: "hmm", time: { start: 1, end: 2 } }, text("  ")], aborted)]);
    expect(empty).toHaveLength(1);
  });

  it("replaces compacted tool output with the cleared marker", () => {
    const out = toModelMessages([user([text("q")]), assistant([completed("c1", "old huge output", 123), completed("c2", "fresh")])]);
    expect(out[1]).toEqual({
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.ts" } },
        { type: "tool-call", toolCallId: "c2", toolName: "read", input: { path: "a.ts" } },
      ],
    });
    expect(out[2]).toEqual({
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: CLEARED_OUTPUT } },
        { type: "tool-result", toolCallId: "c2", toolName: "read", output: { type: "text", value: "fresh" } },
      ],
    });
    expect(CLEARED_OUTPUT).toBe("[Old tool result content cleared]");
  });

  it("gives pending and running tools an interrupted error result, and errored tools their error", () => {
    const out = toModelMessages([
      user([text("q")]),
      assistant(
        [
          { type: "tool", callId: "p", tool: "bash", state: { status: "pending", input: {}, raw: '{"comm' } },
          { type: "tool", callId: "r", tool: "bash", state: { status: "running", input: { command: "ls" }, time: { start: 1 } } },
          { type: "tool", callId: "e", tool: "bash", state: { status: "error", input: { command: "rm" }, error: "denied", time: { start: 1, end: 2 } } },
        ],
        { name: "AbortedError", message: "aborted" },
      ),
    ]);
    const results = out.find((m) => m.role === "tool");
    expect(results?.content).toEqual([
      { type: "tool-result", toolCallId: "p", toolName: "bash", output: { type: "error-text", value: INTERRUPTED } },
      { type: "tool-result", toolCallId: "r", toolName: "bash", output: { type: "error-text", value: INTERRUPTED } },
      { type: "tool-result", toolCallId: "e", toolName: "bash", output: { type: "error-text", value: "denied" } },
    ]);
    expect(INTERRUPTED).toBe("[Tool execution was interrupted]");
    // Every call has exactly one result.
    const calls = out.flatMap((m) => (m.role === "assistant" && Array.isArray(m.content) ? m.content.filter((c) => c.type === "tool-call") : []));
    expect(calls).toHaveLength(3);
  });

  it("turns text files into text and keeps other data files as files", () => {
    const b64 = Buffer.from("export const x = 1;\n").toString("base64");
    const out = toModelMessages([
      user([
        text("look"),
        { type: "file", mime: "text/typescript", filename: "x.ts", url: `data:text/typescript;base64,${b64}` },
        { type: "file", mime: "application/json", filename: "p.json", url: "data:application/json,%7B%22a%22%3A1%7D" },
        { type: "file", mime: "image/png", filename: "i.png", url: "data:image/png;base64,iVBORw0KGgo=" },
        { type: "file", mime: "image/png", url: "https://example.com/remote.png" },
      ]),
    ]);
    expect(out).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "text", text: "Called the read tool on x.ts:\nexport const x = 1;\n" },
          { type: "text", text: 'Called the read tool on p.json:\n{"a":1}' },
          { type: "file", data: "data:image/png;base64,iVBORw0KGgo=", mediaType: "image/png", filename: "i.png" },
        ],
      },
    ]);
  });

  it("gives a model that cannot see images a note in place of each image, and keeps text files as text", () => {
    const b64 = Buffer.from("hello\n").toString("base64");
    const history = [
      user([
        text("what is in these?"),
        { type: "file", mime: "image/png", filename: "shot.png", url: "data:image/png;base64,iVBORw0KGgo=" },
        { type: "file", mime: "text/plain", filename: "notes.txt", url: `data:text/plain;base64,${b64}` },
      ]),
    ];
    expect(toModelMessages(history, { images: false })[0]?.content).toEqual([
      { type: "text", text: "what is in these?" },
      { type: "text", text: imageNote("shot.png") },
      { type: "text", text: "Called the read tool on notes.txt:\nhello\n" },
    ]);
    expect(imageNote("shot.png")).toContain("cannot see images");
    expect(toModelMessages(history, { images: true })[0]?.content).toContainEqual({ type: "file", data: "data:image/png;base64,iVBORw0KGgo=", mediaType: "image/png", filename: "shot.png" });
  });

  it("sends stored provider metadata back as providerOptions (reasoning signatures, item ids), even on empty signed reasoning", () => {
    const out = toModelMessages([
      user([text("q")]),
      assistant([
        { type: "reasoning", text: "", time: { start: 1, end: 2 }, metadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: "enc" } } },
        { type: "reasoning", text: "", time: { start: 1, end: 2 } },
        { type: "text", text: "answer", metadata: { openai: { itemId: "msg_1" } } },
        { ...completed("c", "out"), metadata: { openai: { itemId: "fc_1" } } },
      ]),
    ]);
    expect(out[1]?.content).toEqual([
      { type: "reasoning", text: "", providerOptions: { openai: { itemId: "rs_1", reasoningEncryptedContent: "enc" } } },
      { type: "text", text: "answer", providerOptions: { openai: { itemId: "msg_1" } } },
      { type: "tool-call", toolCallId: "c", toolName: "read", input: { path: "a.ts" }, providerOptions: { openai: { itemId: "fc_1" } } },
    ]);
  });

  it("keeps order: reasoning and text and tool calls of one message, then their results", () => {
    const out = toModelMessages([
      user([text("q")]),
      assistant([{ type: "reasoning", text: "think", time: { start: 1, end: 2 } }, text("let me look"), completed("c", "data"), text("")]),
      user([text("next")]),
    ]);
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(out[1]?.content).toEqual([
      { type: "reasoning", text: "think" },
      { type: "text", text: "let me look" },
      { type: "tool-call", toolCallId: "c", toolName: "read", input: { path: "a.ts" } },
    ]);
  });
});
