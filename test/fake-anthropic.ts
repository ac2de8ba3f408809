import { type Block, type FakeProvider, type WireError, type WireReply, type WireUsage, type Write, header, splitWrites, sse, startFakeProvider } from "./fake-provider";

/**
 * A fake Anthropic Messages API (`POST /v1/messages`, streamed): the events its
 * documentation shows — message_start (input and cache usage), content blocks (thinking
 * with its signature, text, tool_use whose input_json_delta pieces arrive one event each,
 * every event also cut across network writes), message_delta (stop reason, output usage
 * with thinking tokens), message_stop — and its errors, with the key (`x-api-key`) of each
 * request recorded. The provider's baseURL is `${fake.url}/v1`.
 */

export function startFakeAnthropic(port?: number): Promise<FakeProvider> {
  return startFakeProvider({
    keyOf: (headers) => header(headers, "x-api-key"),
    fallback: anthropicReply.error("server"),
    ...(port === undefined ? {} : { port }),
  });
}

function blockEvents(block: Block, index: number): Write[] {
  const event = (data: unknown, name: string): Write[] => splitWrites(sse(data, name), 2);
  if (block.kind === "gate") return [{ kind: "gate", until: block.until }];
  const start =
    block.kind === "reasoning"
      ? { type: "thinking", thinking: "", signature: "" }
      : block.kind === "text"
        ? { type: "text", text: "" }
        : { type: "tool_use", id: block.id, name: block.name, input: {} };
  const deltas =
    block.kind === "reasoning"
      ? [...block.deltas.map((thinking) => ({ type: "thinking_delta", thinking })), { type: "signature_delta", signature: "c2lnbmF0dXJl" }]
      : block.kind === "text"
        ? block.deltas.map((text) => ({ type: "text_delta", text }))
        : block.pieces.map((partial_json) => ({ type: "input_json_delta", partial_json }));
  return [
    ...event({ type: "content_block_start", index, content_block: start }, "content_block_start"),
    ...deltas.flatMap((delta) => event({ type: "content_block_delta", index, delta }, "content_block_delta")),
    ...event({ type: "content_block_stop", index }, "content_block_stop"),
  ];
}

const ERRORS: Record<WireError, { status: number; type: string; message: string; headers?: Record<string, string> }> = {
  "rate-limit": { status: 429, type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit", headers: { "retry-after": "1" } },
  server: { status: 500, type: "api_error", message: "Internal server error" },
  overloaded: { status: 529, type: "overloaded_error", message: "Overloaded" },
  context: { status: 400, type: "invalid_request_error", message: "prompt is too long: 208973 tokens > 200000 maximum" },
  "bad-key": { status: 401, type: "authentication_error", message: "invalid x-api-key" },
};

export const anthropicReply = {
  answer(blocks: Block[], usage: WireUsage, stop: "end_turn" | "tool_use" | "max_tokens" = blocks.some((b) => b.kind === "tool") ? "tool_use" : "end_turn"): WireReply {
    const cache = { cache_creation_input_tokens: usage.cacheWrite ?? 0, cache_read_input_tokens: usage.cacheRead ?? 0 };
    let index = 0;
    const writes: Write[] = [
      { kind: "raw", text: sse({ type: "message_start", message: { id: "msg_fake", type: "message", role: "assistant", content: [], model: "claude-fake", stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: 1, ...cache } } }, "message_start") },
      ...blocks.flatMap((block) => blockEvents(block, block.kind === "gate" ? index : index++)),
      {
        kind: "raw",
        text: sse(
          {
            type: "message_delta",
            delta: { stop_reason: stop, stop_sequence: null },
            usage: { output_tokens: usage.output, ...(usage.reasoning ? { output_tokens_details: { thinking_tokens: usage.reasoning } } : {}) },
          },
          "message_delta",
        ),
      },
      { kind: "raw", text: sse({ type: "message_stop" }, "message_stop") },
    ];
    return { kind: "stream", writes };
  },
  text(...deltas: string[]): WireReply {
    return anthropicReply.answer([{ kind: "text", deltas }], { input: 10, output: deltas.length });
  },
  error(kind: WireError): WireReply {
    const e = ERRORS[kind];
    return { kind: "error", status: e.status, ...(e.headers ? { headers: e.headers } : {}), body: { type: "error", error: { type: e.type, message: e.message } } };
  },
  /** An `error` event after some text: the stream had started (Anthropic sends overloaded errors so). */
  streamError(text: string, kind: WireError): WireReply {
    const e = ERRORS[kind];
    const started = anthropicReply.answer([{ kind: "text", deltas: [text] }], { input: 10, output: 1 });
    const writes = started.kind === "stream" ? started.writes.slice(0, -2) : [];
    return { kind: "stream", writes: [...writes, { kind: "raw", text: sse({ type: "error", error: { type: e.type, message: e.message } }, "error") }] };
  },
};
