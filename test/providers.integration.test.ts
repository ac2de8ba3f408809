import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bus } from "../server/bus/bus";
import { type ProviderConfig, loadModel } from "../server/provider/provider";
import { formatModelRef } from "../server/provider/models";
import { type ModelRef } from "../server/provider/model-info";
import { type Services, withActor } from "../server/services";
import { Session } from "../server/session";
import type { AssistantMessage, Part, PartOf, WithParts } from "../server/session/message";
import * as Prompt from "../server/session/prompt";
import { makeTeam } from "./db";
import { anthropicReply, startFakeAnthropic } from "./fake-anthropic";
import { googleReply, startFakeGoogle } from "./fake-google";
import type { Block, FakeProvider, WireError, WireReply, WireUsage } from "./fake-provider";
import { responsesReply, startFakeResponses } from "./fake-responses";
import { testServices } from "./runtime";
import { closeLocks, echo, isPartUpdate, recorder } from "./session-harness";

/**
 * Acceptance 1 of issue 35, for each provider of its AI SDK package (OpenAI Responses,
 * Anthropic Messages, Gemini streamGenerateContent) against a fake of its wire format over
 * HTTP, through the real session runner: text and reasoning in order, a tool call split
 * across chunks run and answered, usage and exact cost stored, each error class, abort.
 * (The OpenAI-compatible path has the same checks in server/session/openai.integration.test.ts.)
 */

interface Wire {
  name: string;
  model: ModelRef;
  start(): Promise<FakeProvider>;
  reply: {
    answer(blocks: Block[], usage: WireUsage): WireReply;
    text(...deltas: string[]): WireReply;
    error(kind: WireError): WireReply;
    streamError(text: string, kind: WireError): WireReply;
  };
  config(fake: FakeProvider): Partial<ProviderConfig>;
  /** The exact cost of usage {input 1000, output 500 (100 reasoning), cache read 300, cache write 200} at the model's list prices. */
  cost: number;
  /** What the provider reports of that usage: Gemini and OpenAI report no cache writes. */
  cacheWrite: number;
}

const KEY = "sk-provider-test-key-4471";
const WIRES: Wire[] = [
  {
    name: "OpenAI Responses",
    model: { providerId: "openai", modelId: "gpt-5-mini" },
    start: () => startFakeResponses(),
    reply: responsesReply,
    config: (fake) => ({ openai: { apiKey: KEY, baseUrl: `${fake.url}/v1` } }),
    // (700·0.25 + 400·2 + 100·2 + 300·0.025) / 1e6: OpenAI counts cache writes as input.
    cost: 0.0011825,
    cacheWrite: 0,
  },
  {
    name: "Anthropic Messages",
    model: { providerId: "anthropic", modelId: "claude-sonnet-4-5" },
    start: () => startFakeAnthropic(),
    reply: anthropicReply,
    config: (fake) => ({ anthropic: { apiKey: KEY, baseUrl: `${fake.url}/v1` } }),
    // (500·3 + 400·15 + 100·15 + 300·0.3 + 200·3.75) / 1e6
    cost: 0.00984,
    cacheWrite: 200,
  },
  {
    name: "Gemini streamGenerateContent",
    model: { providerId: "google", modelId: "gemini-2.5-flash" },
    start: () => startFakeGoogle(),
    reply: googleReply,
    config: (fake) => ({ google: { apiKey: KEY, baseUrl: `${fake.url}/v1beta` } }),
    // (700·0.3 + 400·2.5 + 100·2.5 + 300·0.03) / 1e6: Gemini bills no cache writes per token.
    cost: 0.001469,
    cacheWrite: 0,
  },
];

afterAll(async () => {
  await closeLocks();
});

function assistants(messages: WithParts[]): { info: AssistantMessage; parts: Part[] }[] {
  return messages.flatMap((m) => (m.info.role === "assistant" ? [{ info: m.info, parts: m.parts }] : []));
}
function only<T extends Part["type"]>(parts: Part[], type: T): PartOf<T>[] {
  return parts.filter((p): p is PartOf<T> => p.type === type);
}

describe.each(WIRES)("$name through the session runner", (wire) => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await wire.start();
  });
  afterAll(async () => {
    await fake.close();
  });

  async function setup() {
    const bus = new Bus();
    const cfg: ProviderConfig = { openai: { apiKey: undefined, baseUrl: undefined }, ...wire.config(fake) };
    const services: Services = testServices(bus, {
      models: { resolve: (ref) => loadModel(ref, cfg), default: () => wire.model },
      settings: { maxAttempts: 3, compaction: { auto: false, prune: false }, flushMs: 20 },
      tools: [echo],
      executeTool: (t, input, ctx) => t.execute(t.parameters.parse(input), ctx),
    });
    const { ctx, projectId } = await makeTeam({ services });
    const session = await Session.create(ctx, { projectId });
    const rec = recorder(bus, ctx.actor.teamId, session.id);
    fake.reset();
    const first = fake.requests.length;
    const ask = async (text: string) => {
      await Prompt.prompt(withActor(services, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text }], model: wire.model });
      await services.runners.idle(session.id);
      return assistants(await Session.allMessages(ctx, session.id));
    };
    return { services, ctx, session, rec, ask, requests: () => fake.requests.slice(first) };
  }

  it("acceptance 1: streamed reasoning then text reach the chat in order, with the team's key on the request", async () => {
    const s = await setup();
    fake.enqueue(wire.reply.answer([{ kind: "reasoning", deltas: ["Thinking ", "it over."] }, { kind: "text", deltas: ["Hello", ", world."] }], { input: 10, output: 6 }));
    const [answer] = await s.ask("say hello");
    expect(answer?.info.error).toBeUndefined();
    const kinds = (answer?.parts ?? []).filter((p) => p.type === "reasoning" || p.type === "text").map((p) => p.type);
    expect(kinds).toEqual(["reasoning", "text"]);
    expect(only(answer?.parts ?? [], "reasoning")[0]?.text).toBe("Thinking it over.");
    expect(only(answer?.parts ?? [], "text")[0]?.text).toBe("Hello, world.");
    // Streamed: the reasoning's deltas were published before the text's first one.
    const deltas = s.rec.partUpdates().filter((u) => u.delta !== undefined);
    const firstText = deltas.findIndex((u) => u.part.type === "text");
    const lastReasoning = deltas.findLastIndex((u) => u.part.type === "reasoning");
    expect(lastReasoning).toBeGreaterThanOrEqual(0);
    expect(lastReasoning).toBeLessThan(firstText);
    expect(answer?.info).toMatchObject({ providerId: wire.model.providerId, modelId: wire.model.modelId });
    expect(s.requests().map((r) => r.key)).toEqual([KEY]);
  });

  it("acceptance 1: a tool call whose arguments arrive split across chunks runs, and its result goes back", async () => {
    const s = await setup();
    fake.enqueue(
      wire.reply.answer([{ kind: "tool", id: "call_split", name: "echo", pieces: ['{"te', 'xt":', ' "hel', 'lo"}'] }], { input: 20, output: 8 }),
      wire.reply.text("It says HELLO."),
    );
    const [first, second] = await s.ask("echo hello");
    const [tool] = only(first?.parts ?? [], "tool");
    expect(tool?.state).toMatchObject({ status: "completed", input: { text: "hello" }, output: "HELLO" });
    expect(only(second?.parts ?? [], "text")[0]?.text).toBe("It says HELLO.");
    const requests = s.requests();
    expect(requests).toHaveLength(2);
    const sent = JSON.stringify(requests[1]?.body);
    expect(sent).toContain("HELLO");
    expect(sent).toContain(wire.model.providerId === "google" ? '"functionResponse"' : "call_split");
  });

  it("acceptance 1: usage with cache reads/writes and reasoning tokens is stored with its exact cost", async () => {
    const s = await setup();
    fake.enqueue(wire.reply.answer([{ kind: "text", deltas: ["ok"] }], { input: wire.cacheWrite ? 500 : 700, output: 500, reasoning: 100, cacheRead: 300, cacheWrite: 200 }));
    const [answer] = await s.ask("count");
    const tokens = { input: wire.cacheWrite ? 500 : 700, output: 400, reasoning: 100, cache: { read: 300, write: wire.cacheWrite } };
    expect(answer?.info.tokens).toEqual(tokens);
    expect(answer?.info.cost).toBe(wire.cost);
    const info = await Session.get(s.ctx, s.session.id);
    expect(info.cost).toBe(wire.cost);
  });

  it.each<[WireError, string, boolean]>([
    ["rate-limit", "APIError", true],
    ["server", "APIError", true],
    ["overloaded", "APIError", true],
  ])("acceptance 1: a %s error is retryable: retried, then answered", async (kind, name, retryable) => {
    const s = await setup();
    const failure = wire.reply.error(kind);
    // The fake's own retry-after (1 s) for a 429; the others retried at once.
    if (failure.kind === "error" && kind !== "rate-limit") failure.headers = { ...failure.headers, "retry-after-ms": "10" };
    fake.enqueue(failure, wire.reply.text("finally"));
    const [answer] = await s.ask("hi");
    expect(answer?.info.error).toBeUndefined();
    expect(only(answer?.parts ?? [], "retry")[0]?.error).toMatchObject({ name, isRetryable: retryable });
    expect(only(answer?.parts ?? [], "text")[0]?.text).toBe("finally");
    expect(s.requests()).toHaveLength(2);
    if (kind === "rate-limit") expect((s.requests()[1]?.time ?? 0) - (s.requests()[0]?.time ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("acceptance 1: an error sent inside a started stream (overloaded) is retried without duplicating text", async () => {
    const s = await setup();
    fake.enqueue(wire.reply.streamError("partial", "overloaded"), wire.reply.text("complete"));
    const [answer] = await s.ask("hi");
    expect(answer?.info.error).toBeUndefined();
    expect(only(answer?.parts ?? [], "text").map((p) => p.text)).toEqual(["complete"]);
    expect(only(answer?.parts ?? [], "retry")).toHaveLength(1);
  });

  it.each<[WireError, string]>([
    ["context", "ContextOverflowError"],
    ["bad-key", "AuthError"],
  ])("acceptance 1: a %s error is a %s, not retried, and never carries the key", async (kind, name) => {
    const s = await setup();
    fake.enqueue(wire.reply.error(kind));
    const [answer] = await s.ask("hi");
    expect(answer?.info.error?.name).toBe(name);
    expect(s.requests()).toHaveLength(1);
    expect(JSON.stringify(answer)).not.toContain(KEY);
    expect(JSON.stringify(s.rec.events)).not.toContain(KEY);
  });

  it("acceptance 1: an answer cut at the output limit ends with an OutputLengthError, its text kept", async () => {
    const s = await setup();
    const cut = wire.model.providerId === "anthropic" ? anthropicReply.answer([{ kind: "text", deltas: ["cut sh"] }], { input: 5, output: 5 }, "max_tokens") : wire.model.providerId === "google" ? googleReply.answer([{ kind: "text", deltas: ["cut sh"] }], { input: 5, output: 5 }, "MAX_TOKENS") : responsesReply.incomplete("cut sh");
    fake.enqueue(cut);
    const [answer] = await s.ask("write a lot");
    expect(answer?.info.error?.name).toBe("OutputLengthError");
    expect(answer?.info.finish).toBe("length");
    expect(only(answer?.parts ?? [], "text")[0]?.text).toBe("cut sh");
    expect(s.requests()).toHaveLength(1);
  });

  it("acceptance 1: an abort stops the stream: the connection closes, the text so far is kept, AbortedError", async () => {
    const s = await setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue(wire.reply.answer([{ kind: "text", deltas: ["Once upon", " a time"] }, { kind: "gate", until: gate }, { kind: "text", deltas: [" never sent"] }], { input: 1, output: 1 }));
    try {
      const asked = s.ask("tell a story");
      await s.rec.when((e) => isPartUpdate(e, (part) => part.type === "text" && part.text.endsWith("a time")));
      await Prompt.abort(withActor(s.services, s.ctx.actor), s.session.id);
      const [answer] = await asked;
      expect(answer?.info.error?.name).toBe("AbortedError");
      expect(only(answer?.parts ?? [], "text")[0]?.text).toBe("Once upon a time");
      // The request's connection was closed by the abort, before the fake went on.
      expect(s.requests()[0]?.ended).toBeDefined();
    } finally {
      release();
    }
  });
});

describe("what each provider is asked", () => {
  it("Anthropic: prompt caching on every request, extended thinking for a model that thinks, its signature sent back", async () => {
    const fake = await startFakeAnthropic();
    try {
      const model = loadModel({ providerId: "anthropic", modelId: "claude-sonnet-4-5" }, { openai: { apiKey: undefined, baseUrl: undefined }, anthropic: { apiKey: KEY, baseUrl: `${fake.url}/v1` } });
      expect(model.providerOptions).toEqual({ anthropic: { cacheControl: { type: "ephemeral" }, thinking: { type: "enabled", budgetTokens: 4096 } } });
      const plain = loadModel({ providerId: "anthropic", modelId: "claude-3-5-haiku-latest" }, { openai: { apiKey: undefined, baseUrl: undefined }, anthropic: { apiKey: KEY, baseUrl: `${fake.url}/v1` } });
      expect(plain.providerOptions).toEqual({ anthropic: { cacheControl: { type: "ephemeral" } } });
      expect(formatModelRef(model.ref)).toBe("anthropic/claude-sonnet-4-5");
    } finally {
      await fake.close();
    }
  });
});
