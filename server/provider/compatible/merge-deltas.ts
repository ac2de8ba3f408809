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
 * a finish reason, usage, log probabilities, an event with an id or several data lines — is
 * passed on as it came and ends the run of merging.
 *
 * The answer is untrusted (limits.ts), and this reader sits before the SDK's own parser,
 * which has no bounds: an unfinished event held here longer than `maxEventChars`, or an
 * answer over `maxAnswerBytes` (counted after fetch's decompression), fails the body with
 * a `ProviderLimitError`. Redirects are followed only within the origin
 * (http-transport.ts `sameOriginFetch`).
 */

import { sameOriginFetch } from "./http-transport";
import { type Json, isNullish, isObject } from "./json-guards";
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

/** One SSE event as received: its text (without the blank line ending it), and what it means when it is a text delta. */
interface Event {
  raw: string;
  /** The `event:` field, when the event has one. */
  name?: string;
  text?: TextEvent;
}

function parseEvent(raw: string): Event {
  let name: string | undefined;
  let data: string | undefined;
  for (const line of raw.split(/\r\n|\r|\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1));
    if (field === "event" && name === undefined) name = value;
    else if (field === "data" && data === undefined) data = value;
    else return { raw }; // an id, a retry, a second data line…: not ours to touch
  }
  if (data === undefined || data[0] !== "{") return { raw, ...(name !== undefined ? { name } : {}) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { raw }; // the SDK reports it
  }
  if (!isObject(parsed)) return { raw };
  const text = chatText(parsed) ?? responsesText(parsed);
  return { raw, ...(name !== undefined ? { name } : {}), ...(text ? { text } : {}) };
}

function serialize(name: string | undefined, data: Json): string {
  return `${name !== undefined ? `event: ${name}\n` : ""}data: ${JSON.stringify(data)}`;
}

/** The events of one read, with runs of same-stream text deltas merged; each followed by a blank line. */
export function mergeEvents(events: readonly string[]): string {
  let out = "";
  let run: { first: Event & { text: TextEvent }; texts: string[] } | undefined;
  const flush = () => {
    if (!run) return;
    out += `${run.texts.length === 1 ? run.first.raw : serialize(run.first.name, run.first.text.with(run.texts.join("")))}\n\n`;
    run = undefined;
  };
  for (const raw of events) {
    const event = parseEvent(raw);
    const text = event.text;
    if (text && run && run.first.name === event.name && run.first.text.key === text.key) {
      run.texts.push(text.text);
      continue;
    }
    flush();
    if (text) run = { first: { ...event, text }, texts: [text.text] };
    else out += `${raw}\n\n`;
  }
  flush();
  return out;
}

/** End of an SSE event: a blank line (CRLF, LF or CR line ends). */
const EVENT_END = /\r\n\r\n|\n\n|\r\r/g;
const LF = 10;
const CR = 13;

/** Whether a chunk is exactly one whole event ending in "\n\n" (the common case, passed on as it is). */
function oneEvent(chunk: Uint8Array): boolean {
  const n = chunk.length;
  if (n < 2 || chunk[n - 1] !== LF || chunk[n - 2] !== LF) return false;
  for (let i = 0; i < n - 2; i++) {
    const byte = chunk[i];
    if (byte === CR || (byte === LF && chunk[i + 1] === LF)) return false;
  }
  return true;
}

/**
 * The chunks of `source` with the text deltas that arrived in the same chunk merged (see
 * above). A chunk that is one whole event goes on untouched; nothing is decoded for it.
 */
export function mergeDeltas(source: ReadableStream<Uint8Array>, limits: ProviderLimits = DEFAULT_PROVIDER_LIMITS): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let carry = "";
  let bytes = 0;
  const refuse = async (error: ProviderLimitError): Promise<never> => {
    await reader.cancel(error);
    throw error;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await reader.read();
        if (!done) {
          bytes += value.length;
          if (bytes > limits.maxAnswerBytes) await refuse(ProviderLimitError.over("maxAnswerBytes", `sent more than ${limits.maxAnswerBytes} bytes`, limits.maxAnswerBytes));
        }
        if (done) {
          const rest = carry + decoder.decode();
          carry = "";
          if (rest) controller.enqueue(encoder.encode(rest));
          controller.close();
          return;
        }
        if (carry === "" && oneEvent(value)) {
          controller.enqueue(value);
          return;
        }
        const text = carry + decoder.decode(value, { stream: true });
        const events: string[] = [];
        let start = 0;
        // The carry holds no event's end: only its last 3 characters may begin one (so a long
        // unfinished event is not searched again at each read).
        EVENT_END.lastIndex = Math.max(0, carry.length - 3);
        for (let m = EVENT_END.exec(text); m; m = EVENT_END.exec(text)) {
          events.push(text.slice(start, m.index));
          start = m.index + m[0].length;
        }
        carry = text.slice(start);
        if (carry.length > limits.maxEventChars) {
          await refuse(ProviderLimitError.over("maxEventChars", `sent an event or line longer than ${limits.maxEventChars} characters`, limits.maxEventChars));
        }
        // A chunk that ends no event adds to the carry; the next one may.
        if (events.length === 0) continue;
        controller.enqueue(encoder.encode(events.length === 1 ? `${events[0]}\n\n` : mergeEvents(events)));
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
