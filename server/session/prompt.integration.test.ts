import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { makeTeam } from "../../test/db";
import { testServices } from "../../test/runtime";
import { Bus } from "../bus/bus";
import { type Services, withActor } from "../services";
import { define, type Tool } from "../tool/tool";
import type { AssistantMessage } from "./message";
import * as Prompt from "./prompt";
import { Session } from ".";

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

function script(steps: LanguageModelV4StreamPart[][]) {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const chunks = steps[Math.min(call, steps.length - 1)] ?? [];
      call++;
      return { stream: convertArrayToReadableStream(chunks) };
    },
  });
}

const echo: Tool = define({
  id: "echo",
  description: "echo the text",
  parameters: z.object({ text: z.string() }),
  execute: async (input) => ({ title: `echo ${input.text}`, output: input.text.toUpperCase(), metadata: { length: input.text.length } }),
});

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
        { type: "reasoning-start", id: "r" },
        { type: "reasoning-delta", id: "r", delta: "thinking" },
        { type: "reasoning-end", id: "r" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Let me " },
        { type: "text-delta", id: "t", delta: "echo.  " },
        { type: "text-end", id: "t" },
        { type: "tool-input-start", id: "call1", toolName: "echo" },
        { type: "tool-input-delta", id: "call1", delta: '{"text":' },
        { type: "tool-input-delta", id: "call1", delta: '"hi"}' },
        { type: "tool-input-end", id: "call1" },
        { type: "tool-call", toolCallId: "call1", toolName: "echo", input: '{"text":"hi"}' },
        { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usage(1000, 100) },
      ],
      [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t2" },
        { type: "text-delta", id: "t2", delta: "Done: HI" },
        { type: "text-end", id: "t2" },
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
