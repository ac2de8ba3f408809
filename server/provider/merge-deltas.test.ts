import { describe, expect, it } from "vitest";
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
