import type { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { makeTeam } from "../../test/db";
import { testServices } from "../../test/runtime";
import { echo, script, streamedReasoning, streamedText, usage } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import { type Services, withActor } from "../services";
import type { AssistantMessage } from "./message";
import * as Prompt from "./prompt";
import { Session } from ".";

function deps(bus: Bus, language: MockLanguageModelV4): Services {
  // Titles of these default-titled sessions come from the test services' title model, not the script.
  return testServices(bus, {
    models: {
      resolve: (ref) => ({ ref, language, limit: { context: 100_000, output: 4_000 }, cost: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 } }),
      default: () => ({ providerId: "test", modelId: "scripted" }),
    },
    settings: { maxAttempts: 3, compaction: { auto: true, prune: true }, flushMs: 20 },
    tools: [echo],
    executeTool: (t, input, ctx) => t.execute(t.parameters.parse(input), ctx),
  });
}

describe("prompt loop (integration)", () => {
  it("streams reasoning, text and a tool call, then answers after the tool result", async () => {
    const bus = new Bus();
    const { ctx, projectId } = await makeTeam({ bus });
    const model = script([
      [
        { type: "stream-start", warnings: [] },
        ...streamedReasoning("r", "thinking"),
        ...streamedText("t", "Let me ", "echo.  "),
        { type: "tool-input-start", id: "call1", toolName: "echo" },
        { type: "tool-input-delta", id: "call1", delta: '{"text":' },
        { type: "tool-input-delta", id: "call1", delta: '"hi"}' },
        { type: "tool-input-end", id: "call1" },
        { type: "tool-call", toolCallId: "call1", toolName: "echo", input: '{"text":"hi"}' },
        { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usage(1000, 100) },
      ],
      [
        { type: "stream-start", warnings: [] },
        ...streamedText("t2", "Done: HI"),
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(1200, 10) },
      ],
    ]);
    const d = deps(bus, model);
    const session = await Session.create(ctx, { projectId });
    const statuses: string[] = [];
    bus.subscribe({ teamId: ctx.actor.teamId, sessionId: session.id }, (e) => {
      if (e.name === "session.status") statuses.push((e.payload as { status: { type: string } }).status.type);
    });
    await Prompt.prompt(withActor(d, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "echo hi" }] });
    await d.runners.idle(session.id);

    const messages = await Session.allMessages(ctx, session.id);
    expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "assistant"]);
    const first = messages[1];
    const second = messages[2];
    expect(first?.parts.map((p) => p.type)).toEqual(["step-start", "reasoning", "text", "tool", "step-finish"]);
    const text = first?.parts.find((p) => p.type === "text");
    expect(text?.type === "text" && text.text).toBe("Let me echo.");
    const tool = first?.parts.find((p) => p.type === "tool");
    expect(tool?.type === "tool" && tool.state.status).toBe("completed");
    if (tool?.type === "tool" && tool.state.status === "completed") {
      expect(tool.state.output).toBe("HI");
      expect(tool.state.title).toBe("echo hi");
      expect(tool.state.input).toEqual({ text: "hi" });
    }
    const info = first?.info as AssistantMessage;
    expect(info.finish).toBe("tool-calls");
    expect(info.tokens).toEqual({ input: 1000, output: 100, reasoning: 0, cache: { read: 0, write: 0 } });
    expect(info.cost).toBeCloseTo((1000 * 1 + 100 * 2) / 1e6, 12);
    expect(info.time.completed).toBeDefined();
    expect(second?.parts.find((p) => p.type === "text")).toMatchObject({ text: "Done: HI" });
    const updated = await Session.get(ctx, session.id);
    expect(updated.tokens.input).toBe(2200);
    expect(statuses[0]).toBe("busy");
    expect(statuses.at(-1)).toBe("idle");
  });
});
