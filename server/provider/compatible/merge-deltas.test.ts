import { describe, expect, it } from "vitest";
import { DEFAULT_PROVIDER_LIMITS } from "../limits";
import { mergeDeltas, mergeEvents, mergingFetch } from "./merge-deltas";

/** Every chunk of a stream, in order. */
async function drain<T>(stream: ReadableStream<T>): Promise<T[]> {
  const reader = stream.getReader();
  const out: T[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value);
  return out;
}

const chat = (content: string, extra: Record<string, unknown> = {}, id = "c1") =>
  `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }], ...extra })}`;
const data = (event: string) => JSON.parse(event.replace(/^(event: .*\n)?data: /, "")) as Record<string, unknown>;
const events = (text: string) => text.split("\n\n").filter(Boolean);
const contentOf = (event: string) => (data(event).choices as Array<{ delta: { content?: string } }>)[0]?.delta.content;

async function pipe(chunks: string[]): Promise<string> {
  const encoder = new TextEncoder();
  const stream = mergeDeltas(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    }),
  );
  const parts: string[] = [];
  const decoder = new TextDecoder();
  for (const part of await drain(stream)) parts.push(decoder.decode(part));
  return parts.join("|");
}

describe("mergeEvents", () => {
  it("joins consecutive chat text deltas of one stream into one event, keeping the first's fields", () => {
    const out = events(mergeEvents([chat("a"), chat("b"), chat("c")]));
    expect(out).toHaveLength(1);
    expect(contentOf(out[0] ?? "")).toBe("abc");
    expect(data(out[0] ?? "")).toMatchObject({ id: "c1", object: "chat.completion.chunk", model: "m" });
  });

  it("keeps anything that is not a plain text delta as it came, and it ends the run", () => {
    const role = `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] })}`;
    const finish = `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}`;
    const tool = `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: "{" } }] }, finish_reason: null }] })}`;
    const usage = chat("u", { usage: { prompt_tokens: 1 } });
    const input = [role, chat("a"), chat("b"), tool, chat("c"), usage, chat("d"), finish, "data: [DONE]"];
    const out = events(mergeEvents(input));
    expect(out).toEqual([role, expect.any(String), tool, chat("c"), usage, chat("d"), finish, "data: [DONE]"]);
    expect(contentOf(out[1] ?? "")).toBe("ab");
  });

  it("never merges across streams, choices, text kinds, log probabilities or unknown fields", () => {
    const reasoning = `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: { reasoning_content: "r" }, finish_reason: null }] })}`;
    const other = chat("x", {}, "c2");
    const logprobs = `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: { content: "l" }, finish_reason: null, logprobs: { content: [] } }] })}`;
    const unknown = chat("k", { extra: true });
    const input = [chat("a"), reasoning, reasoning, other, chat("b"), logprobs, chat("c"), unknown];
    const out = events(mergeEvents(input));
    expect(out).toHaveLength(7);
    expect(out[1] && data(out[1])).toMatchObject({ choices: [{ delta: { reasoning_content: "rr" } }] });
    expect(out.slice(2)).toEqual([other, chat("b"), logprobs, chat("c"), unknown]);
  });

  it("merges Responses API text deltas of one output item, with their event name", () => {
    const delta = (text: string, seq: number, item = "msg_1") =>
      `event: response.output_text.delta\ndata: ${JSON.stringify({ type: "response.output_text.delta", sequence_number: seq, item_id: item, output_index: 0, content_index: 0, delta: text, logprobs: [] })}`;
    const out = events(mergeEvents([delta("a", 1), delta("b", 2), delta("c", 3, "msg_2")]));
    expect(out).toHaveLength(2);
    expect(out[0]?.startsWith("event: response.output_text.delta\ndata: ")).toBe(true);
    expect(out[0] && data(out[0])).toMatchObject({ delta: "ab", sequence_number: 1, item_id: "msg_1" });
    expect(out[1]).toBe(delta("c", 3, "msg_2"));
  });

  it("leaves events with ids, several data lines or bad JSON alone", () => {
    const withId = `id: 7\n${chat("a")}`;
    const twoLines = `${chat("a")}\ndata: more`;
    const bad = "data: {not json";
    expect(events(mergeEvents([withId, chat("b"), twoLines, bad, chat("c")]))).toEqual([withId, chat("b"), twoLines, bad, chat("c")]);
  });
});

describe("mergeDeltas", () => {
  it("passes a chunk that is one whole event on as the same bytes", async () => {
    const bytes = new TextEncoder().encode(`${chat("solo")}\n\n`);
    const out = await drain(mergeDeltas(new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(bytes), c.close()) })));
    expect(out).toEqual([bytes]);
    expect(out[0]).toBe(bytes);
  });

  it("merges the events of one chunk, passes a lone event through, and keeps an event split across chunks whole", async () => {
    const one = `${chat("a")}\n\n${chat("b")}\n\n`;
    const split = `${chat("c")}\n\n${chat("d")}`;
    const out = await pipe([one, split.slice(0, 40), split.slice(40), "\n\ndata: [DONE]\n\n"]);
    const [first, second, third] = out.split("|");
    expect(contentOf(events(first ?? "")[0] ?? "")).toBe("ab");
    expect(contentOf(events(second ?? "")[0] ?? "")).toBe("c");
    expect(events(third ?? "").map((e) => (e.startsWith("data: [") ? e : contentOf(e)))).toEqual(["d", "data: [DONE]"]);
  });

  it("keeps multi-byte characters split between chunks, CRLF events, and a trailing partial event", async () => {
    const text = `${chat("é✓")}\r\n\r\n${chat("ü")}\r\n\r\ndata: tail`;
    const bytes = new TextEncoder().encode(text);
    const at = text.indexOf("✓") + 1;
    const encoder = new TextEncoder();
    const cut = encoder.encode(text.slice(0, at)).length;
    const stream = mergeDeltas(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.slice(0, cut));
          controller.enqueue(bytes.slice(cut));
          controller.close();
        },
      }),
    );
    let out = "";
    const decoder = new TextDecoder();
    for (const part of await drain(stream)) out += decoder.decode(part, { stream: true });
    const list = out.split("\n\n");
    expect(contentOf(list[0] ?? "")).toBe("é✓ü");
    expect(list.at(-1)).toBe("data: tail");
  });
});

describe("mergingFetch", () => {
  it("wraps event streams only, keeping status and headers", async () => {
    const sse = new Response(`${chat("a")}\n\n${chat("b")}\n\n`, { status: 200, headers: { "content-type": "text/event-stream", "x-request-id": "r1" } });
    const json = new Response('{"ok":true}', { status: 200, headers: { "content-type": "application/json" } });
    const error = new Response("data: nope\n\n", { status: 429, headers: { "content-type": "text/event-stream" } });
    const queue = [sse, json, error];
    const fetch = mergingFetch(async () => {
      const next = queue.shift();
      if (!next) throw new Error("no more responses");
      return next;
    });
    const merged = await fetch("http://x");
    expect(merged.headers.get("x-request-id")).toBe("r1");
    expect(contentOf(events(await merged.text())[0] ?? "")).toBe("ab");
    expect(await (await fetch("http://x")).text()).toBe('{"ok":true}');
    const failed = await fetch("http://x");
    expect(failed.status).toBe(429);
    expect(await failed.text()).toBe("data: nope\n\n");
  });
});

/** N8 on the `openai` path: this reader sits before the SDK's unbounded parser, so it bounds what reaches it. */
describe("N8: mergeDeltas and mergingFetch limits", () => {
  const limits = { ...DEFAULT_PROVIDER_LIMITS, maxEventChars: 4096, maxAnswerBytes: 65_536 };
  /** A body of `next()` chunks (up to `max`); whether its reader cancelled it. */
  function body(next: (i: number) => string, max = 100_000) {
    const encoder = new TextEncoder();
    let i = 0;
    let cancelled: unknown;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i >= max) return controller.close();
        controller.enqueue(encoder.encode(next(i++)));
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    return { stream, reads: () => i, cancelled: () => cancelled };
  }

  it("an event that never ends fails at maxEventChars, and the body is cancelled", async () => {
    const source = body((i) => (i === 0 ? "data: " : "x".repeat(1000)));
    await expect(drain(mergeDeltas(source.stream, limits))).rejects.toMatchObject({ name: "ProviderLimitError", message: expect.stringContaining("(provider.maxEventChars: 4096)") });
    expect(source.reads()).toBeLessThan(10);
    expect(source.cancelled()).toMatchObject({ name: "ProviderLimitError" });
  });

  it("an answer over maxAnswerBytes fails, whole events included", async () => {
    const source = body(() => `${chat("0123456789")}\n\n`);
    await expect(drain(mergeDeltas(source.stream, limits))).rejects.toMatchObject({ message: expect.stringContaining("(provider.maxAnswerBytes: 65536)") });
    expect(source.reads()).toBeLessThan(1000);
  });

  it("mergingFetch asks for an uncompressed answer, bounds a body that is not an event stream, and refuses a redirect to another origin", async () => {
    const seen: { url: string; encoding: string | null; redirect: RequestRedirect | undefined }[] = [];
    const queue = [
      () => new Response(body(() => "y".repeat(1000)).stream, { status: 200, headers: { "content-type": "application/json" } }),
      () => new Response(null, { status: 302, headers: { location: "http://other.test/bomb" } }),
      () => new Response(null, { status: 307, headers: { location: "/v2/responses" } }),
      () => new Response(`${chat("moved")}\n\n`, { status: 200, headers: { "content-type": "text/event-stream" } }),
    ];
    const fetch = mergingFetch(async (input, init) => {
      seen.push({ url: String(input), encoding: new Headers(init?.headers).get("accept-encoding"), redirect: init?.redirect });
      const next = queue.shift();
      if (!next) throw new Error("no more responses");
      return next();
    }, limits);
    await expect((await fetch("http://api.test/v1/responses")).text()).rejects.toMatchObject({ message: expect.stringContaining("provider.maxAnswerBytes") });
    await expect(fetch("http://api.test/v1/responses")).rejects.toMatchObject({ name: "ProviderLimitError", message: expect.stringContaining("redirected to another origin (HTTP 302 to http://other.test)") });
    expect(contentOf(events(await (await fetch("http://api.test/v1/responses", { method: "POST", body: "{}" })).text())[0] ?? "")).toBe("moved");
    expect(seen.map((s) => s.url)).toEqual(["http://api.test/v1/responses", "http://api.test/v1/responses", "http://api.test/v1/responses", "http://api.test/v2/responses"]);
    expect(seen.every((s) => s.encoding === "identity" && s.redirect === "manual")).toBe(true);
  });
});
