import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ParleyError } from "../errors";
import {
  ProviderError,
  type ProviderConfig,
  availableModels,
  defaultModel,
  languageModel,
  loadModel,
  offlineModel,
  smallModel,
} from "./provider";

/** Every chunk of a stream, in order. */
async function drain<T>(stream: ReadableStream<T>): Promise<T[]> {
  const reader = stream.getReader();
  const out: T[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value);
  return out;
}

const none: ProviderConfig = { openai: { apiKey: undefined, baseUrl: undefined } };
const keyed: ProviderConfig = { openai: { apiKey: "sk-test", baseUrl: undefined } };
const local: ProviderConfig = { openai: { apiKey: undefined, baseUrl: "http://127.0.0.1:11434/v1" }, model: "compatible/llama3.1" };

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Capture the request a model would send, without any network. */
function captureFetch(): Array<{ url: string; headers: Headers; body: unknown }> {
  const seen: Array<{ url: string; headers: Headers; body: unknown }> = [];
  vi.stubGlobal("fetch", async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    seen.push({ url, headers: new Headers(init?.headers), body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined });
    return new Response(JSON.stringify({ error: { message: "captured", type: "test" } }), {
      status: 400,
      headers: { "content-type": "application/json" },
    });
  });
  return seen;
}

/** A local server answering every request with `body` (an event stream), recording what it was sent. */
async function serve(body: string): Promise<{ url: string; seen: Array<{ url: string; headers: http.IncomingHttpHeaders; body: unknown }> }> {
  const seen: Array<{ url: string; headers: http.IncomingHttpHeaders; body: unknown }> = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString()));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}
const servers: http.Server[] = [];

afterEach(async () => {
  vi.unstubAllGlobals();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];

describe("providers", () => {
  it('"openai" is the Responses API of @ai-sdk/openai', async () => {
    const model = languageModel({ providerId: "openai", modelId: "gpt-4.1-mini" }, keyed);
    expect(model.provider).toBe("openai.responses");
    expect(model.modelId).toBe("gpt-4.1-mini");
    const seen = captureFetch();
    await expect(model.doStream({ prompt })).rejects.toThrow();
    expect(seen[0]?.url).toBe("https://api.openai.com/v1/responses");
    expect(seen[0]?.headers.get("authorization")).toBe("Bearer sk-test");
  });

  it('"openai" goes to OPENAI_BASE_URL when it is set', async () => {
    const model = languageModel({ providerId: "openai", modelId: "gpt-4o" }, { openai: { apiKey: "sk-test", baseUrl: "http://proxy.test/v1" } });
    const seen = captureFetch();
    await expect(model.doStream({ prompt })).rejects.toThrow();
    expect(seen[0]?.url).toBe("http://proxy.test/v1/responses");
  });

  it('"compatible" is Chat Completions against OPENAI_BASE_URL, keyless allowed', async () => {
    const model = languageModel({ providerId: "compatible", modelId: "llama3.1" }, local);
    expect(model.provider).toBe("openai.chat");
    expect(model.modelId).toBe("llama3.1");
    const server = await serve("data: [DONE]\n\n");
    const reached = languageModel({ providerId: "compatible", modelId: "llama3.1" }, { ...local, openai: { ...local.openai, baseUrl: server.url } });
    await drain((await reached.doStream({ prompt })).stream);
    expect(server.seen[0]?.url).toBe("/v1/chat/completions");
    expect(server.seen[0]?.headers.authorization).toBe("Bearer none");
    expect(server.seen[0]?.body).toMatchObject({ model: "llama3.1", stream: true });
  });

  it('"compatible" (chat-stream.ts) and "openai" (merge-deltas.ts) read text deltas that arrived together as one delta', async () => {
    const chunk = (content: string) => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const body = `${chunk("Hel")}${chunk("lo")}${chunk(" there")}data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;
    const server = await serve(body);
    const model = languageModel({ providerId: "compatible", modelId: "llama3.1" }, { ...local, openai: { ...local.openai, baseUrl: server.url } });
    const { stream } = await model.doStream({ prompt });
    const deltas: string[] = [];
    for (const part of await drain(stream)) if (part.type === "text-delta") deltas.push(part.delta);
    expect(deltas).toEqual(["Hello there"]);

    const event = (delta: string, seq: number) =>
      `event: response.output_text.delta\ndata: ${JSON.stringify({ type: "response.output_text.delta", sequence_number: seq, item_id: "msg_1", output_index: 0, content_index: 0, delta, logprobs: [] })}\n\n`;
    const responses = `${event("a", 1)}${event("b", 2)}`;
    vi.stubGlobal("fetch", async () => new Response(responses, { status: 200, headers: { "content-type": "text/event-stream" } }));
    const openai = languageModel({ providerId: "openai", modelId: "gpt-4.1-mini" }, keyed);
    const seen: string[] = [];
    for (const part of await drain((await openai.doStream({ prompt })).stream)) if (part.type === "text-delta") seen.push(part.delta);
    expect(seen).toEqual(["ab"]);
  });

  it('"offline" is the built-in model, one instance per process', () => {
    const model = languageModel({ providerId: "offline", modelId: "parley-offline" }, none);
    expect(model.provider).toBe("offline");
    expect(model.modelId).toBe("parley-offline");
    expect(model).toBe(offlineModel());
    const paced = languageModel({ providerId: "offline", modelId: "parley-offline" }, { ...none, offline: { tokensPerSecond: 0 } });
    expect(paced).not.toBe(model);
    expect(paced).toBe(offlineModel(0));
  });

  it("refuses what cannot work, with typed errors", () => {
    const unknown = thrown(() => languageModel({ providerId: "mistral", modelId: "large" }, keyed));
    expect(unknown).toBeInstanceOf(ProviderError);
    expect(unknown).toBeInstanceOf(ParleyError);
    expect(unknown).toMatchObject({ code: "INVALID", reason: "unknown-provider", providerId: "mistral" });

    expect(thrown(() => languageModel({ providerId: "openai", modelId: "gpt-4o" }, none))).toMatchObject({ reason: "missing-api-key" });
    expect(thrown(() => languageModel({ providerId: "compatible", modelId: "x" }, keyed))).toMatchObject({ reason: "missing-base-url" });
    expect(thrown(() => languageModel({ providerId: "offline", modelId: "gpt-4o" }, none))).toMatchObject({ reason: "unknown-model" });
  });

  it("issue 35: Anthropic and Google need a key they are given: the SDKs' own environment variables are never read", () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-from-env");
    vi.stubEnv("GOOGLE_GENERATIVE_AI_API_KEY", "from-env");
    try {
      expect(thrown(() => languageModel({ providerId: "anthropic", modelId: "claude-haiku-4-5" }, none))).toMatchObject({ reason: "missing-api-key", providerId: "anthropic" });
      expect(thrown(() => languageModel({ providerId: "google", modelId: "gemini-2.5-flash" }, none))).toMatchObject({ reason: "missing-api-key", providerId: "google" });
    } finally {
      vi.unstubAllEnvs();
    }
    const claude = languageModel({ providerId: "anthropic", modelId: "claude-haiku-4-5" }, { ...none, anthropic: { apiKey: "k", baseUrl: undefined } });
    expect(claude.provider).toBe("anthropic.messages");
    expect(languageModel({ providerId: "google", modelId: "gemini-2.5-flash" }, { ...none, google: { apiKey: "k", baseUrl: undefined } }).provider).toBe("google.generative-ai");
  });

  it("picks a default model from the configuration", () => {
    expect(defaultModel(none)).toEqual({ providerId: "offline", modelId: "parley-offline" });
    expect(defaultModel(keyed)).toEqual({ providerId: "openai", modelId: "gpt-4.1-mini" });
    expect(defaultModel({ ...keyed, model: "openai/gpt-5" })).toEqual({ providerId: "openai", modelId: "gpt-5" });
    expect(defaultModel(local)).toEqual({ providerId: "compatible", modelId: "llama3.1" });
    // A base URL alone does not say which model the server has.
    expect(thrown(() => defaultModel({ openai: local.openai }))).toMatchObject({ reason: "no-default-model" });
  });

  it("picks a small model for titles and summaries", () => {
    expect(smallModel(none)).toEqual({ providerId: "offline", modelId: "parley-offline" });
    expect(smallModel(keyed)).toEqual({ providerId: "openai", modelId: "gpt-4.1-nano" });
    expect(smallModel({ ...keyed, smallModel: "openai/gpt-5-nano" })).toEqual({ providerId: "openai", modelId: "gpt-5-nano" });
    expect(smallModel(local)).toEqual({ providerId: "compatible", modelId: "llama3.1" });
    // Through a proxy, gpt-4.1-nano may not exist: stay on the default model.
    expect(smallModel({ openai: { apiKey: "k", baseUrl: "http://proxy.test/v1" } })).toEqual({ providerId: "openai", modelId: "gpt-4.1-mini" });
  });

  it("lists the models a picker may offer", () => {
    const ids = (cfg: ProviderConfig) => availableModels(cfg).map((m) => `${m.providerId}/${m.modelId}`);
    expect(ids(none)).toEqual(["offline/parley-offline"]);
    expect(ids(keyed)).toContain("openai/gpt-4.1-mini");
    expect(ids(keyed)[0]).toBe("offline/parley-offline");
    expect(ids(keyed).some((id) => id.startsWith("compatible/"))).toBe(false);
    expect(ids({ ...local, models: { "compatible/qwen2.5": { limit: { context: 32_768 } } } })).toEqual([
      "offline/parley-offline",
      "compatible/llama3.1",
      "compatible/qwen2.5",
    ]);
    expect(availableModels(none)[0]?.name).toBe("Offline model (built in, no network)");
  });

  it("loads a model with its limits and prices, overrides applied", () => {
    const loaded = loadModel({ providerId: "compatible", modelId: "llama3.1" }, { ...local, models: { "compatible/llama3.1": { limit: { context: 8192, output: 2048 } } } });
    expect(loaded.language.provider).toBe("openai.chat");
    expect(loaded.limit).toEqual({ context: 8192, output: 2048 });
    expect(loaded.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(loadModel({ providerId: "offline", modelId: "parley-offline" }, none).limit).toEqual({ context: 32_000, output: 4_096 });
  });
});
