import { type Block, type FakeProvider, type WireError, type WireReply, type WireUsage, type Write, bearer, splitWrites, sse, startFakeProvider } from "./fake-provider";

/**
 * A fake OpenAI Responses API (`POST /v1/responses`, streamed): the events its
 * documentation shows — response.created, output items (reasoning with its summary text
 * deltas, a message with output_text deltas, a function_call whose arguments arrive in
 * pieces), response.completed with usage (cached and reasoning tokens) — and its errors,
 * with the key (`Authorization: Bearer`) of each request recorded. The provider's baseURL
 * is `${fake.url}/v1`.
 */

export function startFakeResponses(port?: number): Promise<FakeProvider> {
  return startFakeProvider({ keyOf: bearer, fallback: responsesReply.error("server"), ...(port === undefined ? {} : { port }) });
}

function itemWrites(block: Block, index: number, seq: () => number): Write[] {
  const ev = (data: Record<string, unknown>): Write[] => splitWrites(sse({ ...data, sequence_number: seq() }, String(data.type)), 2);
  if (block.kind === "gate") return [{ kind: "gate", until: block.until }];
  const output_index = index;
  if (block.kind === "reasoning") {
    const item_id = `rs_${index}`;
    const text = block.deltas.join("");
    return [
      ...ev({ type: "response.output_item.added", output_index, item: { id: item_id, type: "reasoning", summary: [] } }),
      ...ev({ type: "response.reasoning_summary_part.added", item_id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } }),
      ...block.deltas.flatMap((delta) => ev({ type: "response.reasoning_summary_text.delta", item_id, output_index, summary_index: 0, delta })),
      ...ev({ type: "response.reasoning_summary_part.done", item_id, output_index, summary_index: 0, part: { type: "summary_text", text } }),
      ...ev({ type: "response.output_item.done", output_index, item: { id: item_id, type: "reasoning", summary: [{ type: "summary_text", text }], encrypted_content: null } }),
    ];
  }
  if (block.kind === "text") {
    const item_id = `msg_${index}`;
    const text = block.deltas.join("");
    return [
      ...ev({ type: "response.output_item.added", output_index, item: { id: item_id, type: "message", role: "assistant", status: "in_progress", content: [] } }),
      ...block.deltas.flatMap((delta) => ev({ type: "response.output_text.delta", item_id, output_index, content_index: 0, delta, logprobs: [] })),
      ...ev({ type: "response.output_item.done", output_index, item: { id: item_id, type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] } }),
    ];
  }
  const item_id = `fc_${index}`;
  const args = block.pieces.join("");
  return [
    ...ev({ type: "response.output_item.added", output_index, item: { id: item_id, type: "function_call", call_id: block.id, name: block.name, arguments: "", status: "in_progress" } }),
    ...block.pieces.flatMap((delta) => ev({ type: "response.function_call_arguments.delta", item_id, output_index, delta })),
    ...ev({ type: "response.function_call_arguments.done", item_id, output_index, arguments: args }),
    ...ev({ type: "response.output_item.done", output_index, item: { id: item_id, type: "function_call", call_id: block.id, name: block.name, arguments: args, status: "completed" } }),
  ];
}

const ERRORS: Record<WireError, { status: number; type: string; code: string | null; message: string; headers?: Record<string, string> }> = {
  "rate-limit": { status: 429, type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached for requests", headers: { "retry-after": "1" } },
  server: { status: 500, type: "server_error", code: null, message: "The server had an error while processing your request." },
  overloaded: { status: 503, type: "server_error", code: null, message: "The engine is currently overloaded, please try again later." },
  context: { status: 400, type: "invalid_request_error", code: "context_length_exceeded", message: "Your input exceeds the context window of this model." },
  "bad-key": { status: 401, type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided." },
};

const response = (status: string, extra: Record<string, unknown> = {}) => ({ id: "resp_fake", object: "response", created_at: 1_764_000_000, status, model: "gpt-fake", output: [], ...extra });

export const responsesReply = {
  answer(blocks: Block[], usage: WireUsage): WireReply {
    let n = 0;
    const seq = () => n++;
    let index = 0;
    const usageBody = {
      input_tokens: usage.input + (usage.cacheRead ?? 0),
      input_tokens_details: { cached_tokens: usage.cacheRead ?? 0 },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
      total_tokens: usage.input + (usage.cacheRead ?? 0) + usage.output,
    };
    const writes: Write[] = [
      { kind: "raw", text: sse({ type: "response.created", sequence_number: seq(), response: response("in_progress") }, "response.created") },
      ...blocks.flatMap((block) => itemWrites(block, block.kind === "gate" ? index : index++, seq)),
      { kind: "raw", text: sse({ type: "response.completed", sequence_number: seq(), response: response("completed", { usage: usageBody }) }, "response.completed") },
    ];
    return { kind: "stream", writes };
  },
  /** An answer cut at max_output_tokens: `response.incomplete`. */
  incomplete(text: string): WireReply {
    const whole = responsesReply.answer([{ kind: "text", deltas: [text] }], { input: 5, output: 5 });
    const writes = whole.kind === "stream" ? whole.writes.slice(0, -1) : [];
    const usage = { input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 10 };
    const end = sse({ type: "response.incomplete", sequence_number: 98, response: response("incomplete", { incomplete_details: { reason: "max_output_tokens" }, usage }) }, "response.incomplete");
    return { kind: "stream", writes: [...writes, { kind: "raw", text: end }] };
  },
  text(...deltas: string[]): WireReply {
    return responsesReply.answer([{ kind: "text", deltas }], { input: 10, output: deltas.length });
  },
  error(kind: WireError): WireReply {
    const e = ERRORS[kind];
    return { kind: "error", status: e.status, ...(e.headers ? { headers: e.headers } : {}), body: { error: { message: e.message, type: e.type, param: null, code: e.code } } };
  },
  /** An `error` event after some text: the stream had started. */
  streamError(text: string, kind: WireError): WireReply {
    const e = ERRORS[kind];
    const started = responsesReply.answer([{ kind: "text", deltas: [text] }], { input: 10, output: 1 });
    const writes = started.kind === "stream" ? started.writes.slice(0, -1) : [];
    return { kind: "stream", writes: [...writes, { kind: "raw", text: sse({ type: "error", sequence_number: 99, code: e.code ?? e.type, message: e.message, param: null }, "error") }] };
  },
};
