/**
 * Text deltas that have already arrived together, merged before the AI SDK reads them: the
 * `fetch` of the `openai` provider (the Responses API). The `compatible` provider reads its
 * streams itself and merges there (chat-stream.ts); Chat Completions chunks are still
 * understood here, for any Chat Completions model read through the SDK.
 *
 * The AI SDK pays about 0.1 ms of CPU per streamed event (SSE parsing, JSON parsing and
 * validation, several stream stages), whatever the event carries. When the server is busy,
 * a provider's events queue up in the socket, and one read returns many of them: each of
 * a stream's consecutive text deltas in that read is then merged into one event (its texts
 * joined), so the SDK's cost falls as the load rises instead of the backlog growing. Nothing
 * waits for merging: an event that arrives alone goes on at once, unchanged. Only plain text
 * deltas merge (OpenAI chat completions `choices[0].delta.content` / reasoning, and Responses
 * `response.output_text.delta` / reasoning text deltas); anything else — a role, a tool call,
 * a finish reason, usage, log probabilities, an event with an id, a comment, a retry or
 * several data lines — is passed on as it came and ends the run of merging.
 *
 * The events are read by the SSE reader both providers share (sse-reader.ts, on
 * `eventsource-parser`). The answer is untrusted (limits.ts), and this reader sits before
 * the SDK's own parser, which has no bounds: an unfinished event held here longer than
 * `maxEventChars`, or an answer over `maxAnswerBytes` (counted after fetch's
 * decompression), fails the body with a `ProviderLimitError`. Redirects are followed only within the origin
 * (http-transport.ts `sameOriginFetch`).
 */

import { sameOriginFetch } from "./http-transport";
import { type Json, isNullish, isObject } from "./json-guards";
import { type SseBlock, SseBlockReader } from "./sse-reader";
import { DEFAULT_PROVIDER_LIMITS, type ProviderLimits, ProviderLimitError } from "../limits";

/** Fields of a chat completion chunk that may differ or be dropped between merged chunks. */
const CHAT_TOP = new Set(["id", "object", "created", "model", "system_fingerprint", "service_tier", "obfuscation", "choices", "usage"]);
const CHAT_TEXT = ["content", "reasoning_content", "reasoning"] as const;
/** Responses API events whose `delta` is a piece of text. */
const RESPONSES_TEXT = new Set(["response.output_text.delta", "response.reasoning_text.delta", "response.reasoning_summary_text.delta"]);
const RESPONSES_KEYS = new Set(["type", "sequence_number", "item_id", "output_index", "content_index", "summary_index", "delta", "logprobs", "obfuscation"]);

/** What a mergeable event is: the key that must match its neighbour's, and how to add a neighbour's text. */
interface TextEvent {
  key: string;
  text: string;
  /** The event with `text` as its text (a copy). */
  with(text: string): Json;
}

function chatText(data: Json): TextEvent | undefined {
  for (const key of Object.keys(data)) if (!CHAT_TOP.has(key)) return undefined;
  if (!isNullish(data.usage) || !Array.isArray(data.choices) || data.choices.length !== 1) return undefined;
  const choice: unknown = data.choices[0];
  if (!isObject(choice) || !isNullish(choice.finish_reason) || !isNullish(choice.logprobs) || !isObject(choice.delta)) return undefined;
  for (const key of Object.keys(choice)) if (key !== "index" && key !== "delta" && key !== "finish_reason" && key !== "logprobs") return undefined;
  const delta = choice.delta;
  const keys = Object.keys(delta);
  const field = CHAT_TEXT.find((name) => keys.length === 1 && keys[0] === name);
  const text = field ? delta[field] : undefined;
  if (!field || typeof text !== "string") return undefined;
  return {
    key: `chat\0${String(data.id)}\0${String(choice.index)}\0${field}`,
    text,
    with: (joined) => ({ ...data, choices: [{ ...choice, delta: { [field]: joined } }] }),
  };
}

function responsesText(data: Json): TextEvent | undefined {
  if (typeof data.type !== "string" || !RESPONSES_TEXT.has(data.type) || typeof data.delta !== "string") return undefined;
  for (const key of Object.keys(data)) if (!RESPONSES_KEYS.has(key)) return undefined;
  if (Array.isArray(data.logprobs) ? data.logprobs.length > 0 : !isNullish(data.logprobs)) return undefined;
  return {
    key: `responses\0${data.type}\0${String(data.item_id)}\0${String(data.output_index)}\0${String(data.content_index)}\0${String(data.summary_index)}`,
    text: data.delta,
    with: (joined) => ({ ...data, delta: joined }),
  };
}

/** The text delta a block is, if it is one. */
function textEvent(block: SseBlock): TextEvent | undefined {
  const data = block.plain ? block.message?.data : undefined;
  if (data === undefined || data[0] !== "{") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined; // the SDK reports it
  }
  return isObject(parsed) ? (chatText(parsed) ?? responsesText(parsed)) : undefined;
}

function serialize(name: string | undefined, data: Json): string {
  return `${name !== undefined ? `event: ${name}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

/** The text of `blocks` (the events of one read) with runs of same-stream text deltas merged; undefined when none merges. */
function mergeBlocks(blocks: readonly SseBlock[]): string | undefined {
  if (blocks.length < 2) return undefined;
  let out = "";
  let merged = false;
  let run: { first: SseBlock; text: TextEvent; texts: string[] } | undefined;
  const flush = () => {
    if (!run) return;
    if (run.texts.length === 1) out += run.first.text;
    else {
      merged = true;
      out += serialize(run.first.message?.event, run.text.with(run.texts.join("")));
    }
    run = undefined;
  };
  for (const block of blocks) {
    const text = textEvent(block);
    if (text && run && run.first.message?.event === block.message?.event && run.text.key === text.key) {
      run.texts.push(text.text);
      continue;
    }
    flush();
    if (text) run = { first: block, text, texts: [text.text] };
    else out += block.text;
  }
  flush();
  return merged ? out : undefined;
}

/** The events of one read (each its text without the blank line that ends it), with runs of same-stream text deltas merged; each followed by a blank line. */
export function mergeEvents(events: readonly string[]): string {
  const reader = new SseBlockReader(DEFAULT_PROVIDER_LIMITS);
  const blocks = events.flatMap((raw) => reader.readText(`${raw}\n\n`));
  return mergeBlocks(blocks) ?? blocks.map((block) => block.text).join("");
}

/**
 * The chunks of `source` with the text deltas that arrived in the same chunk merged (see
 * above), read by the shared SSE reader (sse-reader.ts). A read that merges nothing, begins
 * between two events and ends between two events goes on as it came (a read that is one whole
 * event is not even decoded); an unfinished event is held until the read that finishes it.
 */
export function mergeDeltas(source: ReadableStream<Uint8Array>, limits: ProviderLimits = DEFAULT_PROVIDER_LIMITS): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const sse = new SseBlockReader(limits);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          const rest = sse.end();
          if (rest) controller.enqueue(encoder.encode(rest));
          controller.close();
          return;
        }
        const between = sse.between;
        let blocks: SseBlock[] | "whole";
        try {
          blocks = sse.read(value);
        } catch (error) {
          await reader.cancel(error);
          throw error;
        }
        if (blocks === "whole") {
          controller.enqueue(value);
          return;
        }
        // A chunk that ends no event adds to what is held; the next one may.
        if (blocks.length === 0) continue;
        const merged = mergeBlocks(blocks);
        // Nothing merged, from one event's start to another's end: the bytes as they came.
        if (merged === undefined && between && sse.between) controller.enqueue(value);
        else controller.enqueue(encoder.encode(merged ?? blocks.map((block) => block.text).join("")));
        return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * `fetch` whose event-stream answers have their already-arrived text deltas merged, within
 * `limits`; redirects followed only within the origin, an uncompressed answer asked for.
 */
export function mergingFetch(base?: typeof fetch, limits: ProviderLimits = DEFAULT_PROVIDER_LIMITS): typeof fetch {
  const send = sameOriginFetch((input, init) => (base ?? globalThis.fetch)(input, init));
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (!headers.has("accept-encoding")) headers.set("accept-encoding", "identity");
    const response = await send(input, { ...init, headers });
    const type = response.headers.get("content-type") ?? "";
    if (!response.body) return response;
    // Not an event stream (an error, a whole answer): the SDK reads it whole, within the byte limit.
    if (!response.ok || !type.includes("text/event-stream")) return new Response(bounded(response.body, limits.maxAnswerBytes), response);
    return new Response(mergeDeltas(response.body, limits), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** `source`, failing once more than `limit` bytes came. */
export function bounded(source: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let bytes = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      bytes += value.length;
      if (bytes > limit) {
        const error = ProviderLimitError.over("maxAnswerBytes", `sent more than ${limit} bytes`, limit);
        await reader.cancel(error);
        throw error;
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
