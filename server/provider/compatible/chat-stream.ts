import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart, LanguageModelV4StreamResult } from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import { type ParseResult, isAbortError } from "@ai-sdk/provider-utils";
import { type ChatChunk, ChatChunkTransform, type Parsed, isOutputChunk, mergeRuns, parseChunk } from "./chat-chunks";
import { type ByteSource, type Incoming, fetchTransport, httpTransport, streamOf, toResponse } from "./http-transport";
import { SseDataReader } from "./sse-reader";
import { DEFAULT_PROVIDER_LIMITS, type ProviderLimits, ProviderLimitError, isProviderLimitError } from "../limits";

/**
 * The `compatible` provider's model: `@ai-sdk/openai`'s Chat Completions model, with the
 * body of a streamed answer read here instead of through the SDK's stream stages.
 *
 * The SDK pays about 0.2 ms of CPU per streamed chunk (a text decoder stream, an SSE
 * parser stream, JSON parsing and zod validation, a tee for its early-error check and its
 * transform, each a stream stage with its own promises). For an answer that arrives one
 * small delta at a time, that is most of what the server spends on it. Here one reader
 * decodes, splits and parses the body in place, and hands the chunks to a transform that
 * mirrors the SDK's (`chat-chunks.ts`).
 *
 * The SDK still builds and sends the request, and handles everything that is not a streamed
 * answer: HTTP errors, and an error frame (or a malformed chunk, or an end) before any
 * output, which it turns into a retryable `APICallError`. To keep those its own, the
 * provider's `fetch` reads a successful body up to its first output chunk: when an error or
 * the end comes first, the SDK gets the whole body as it came; otherwise the body stays here
 * and the SDK gets an empty one, whose `stream-start` part (the call's warnings) is kept.
 * Requests go out through `node:http` (http-transport.ts).
 *
 * The SSE events are read by the reader both providers share (sse-reader.ts). The answer is
 * untrusted (limits.ts): the SSE parser holds at most `maxEventChars` of an
 * unfinished event or line, at most `maxBytesBeforeOutput` are read (and kept) before the
 * first output, and at most `maxAnswerBytes` in all; over one, reading fails with a
 * `ProviderLimitError`, which ends the step. Each is an integer comparison per read.
 */

type StreamStartPart = Extract<LanguageModelV4StreamPart, { type: "stream-start" }>;

/** The chunks of the SSE events of a body, a read at a time (the shared SSE reader, sse-reader.ts). */
class EventReader {
  private readonly sse: SseDataReader;
  private ended = false;
  /** The bytes read, while someone needs them (the early-error check's hand-back). */
  recorded: Uint8Array[] | undefined = [];

  constructor(
    private readonly source: ByteSource,
    readonly limits: ProviderLimits,
  ) {
    this.sse = new SseDataReader(limits);
  }

  /** The bytes read so far. */
  get bytes(): number {
    return this.sse.bytes;
  }

  /** The chunks of the events the next read completed (none is possible); undefined at the end. `[DONE]` is not a chunk. */
  async nextChunks(): Promise<Parsed[] | undefined> {
    if (this.ended) return undefined;
    const value = await this.source.read();
    const done = value === undefined;
    if (done) {
      this.ended = true;
      this.sse.end();
    } else {
      this.sse.read(value);
      this.recorded?.push(value);
    }
    const events = this.sse.take();
    if (done && events.length === 0) return undefined;
    const out: Parsed[] = [];
    for (const data of events) {
      if (data === "[DONE]") continue;
      const parsed = parseChunk(data);
      out.push(parsed instanceof Promise ? await parsed : parsed);
    }
    return out;
  }

  cancel(reason?: unknown): Promise<void> {
    return this.source.cancel(reason);
  }

  /** A body of what was read so far, then the rest (or `failure`, when reading failed), still within the answer's byte limit. */
  replay(failure?: { error: unknown }): ReadableStream<Uint8Array> {
    const chunks = this.recorded ?? [];
    this.recorded = undefined;
    return streamOf(boundedSource(this.source, this.limits.maxAnswerBytes - this.bytes, this.limits.maxAnswerBytes), chunks, failure);
  }
}

/** `source`, failing once more than `left` bytes came (`limit`: the answer's whole limit, for the message). */
function boundedSource(source: ByteSource, left: number, limit: number): ByteSource {
  return {
    async read() {
      const chunk = await source.read();
      if (chunk === undefined) return undefined;
      left -= chunk.length;
      if (left < 0) throw ProviderLimitError.over("maxAnswerBytes", `sent more than ${limit} bytes`, limit);
      return chunk;
    },
    cancel: (reason) => source.cancel(reason),
  };
}

/** A body kept here: its reader, the chunks read up to its first output, and what its read errors report. */
interface Diverted {
  events: EventReader;
  chunks: Parsed[];
  call: CallFacts;
}

/** The request and response a read error is reported with. */
interface CallFacts {
  url: string;
  statusCode: number;
  responseHeaders: Record<string, string>;
  /** The request body sent (the SDK's own JSON). */
  body: unknown;
}

/** Network error codes (anywhere in a cause chain) that make a failed read retryable, as in the SDK. */
const NETWORK_ERROR_CODES = new Set([
  "ConnectionRefused",
  "ConnectionClosed",
  "FailedToOpenSocket",
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function networkError(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    if ("code" in current && typeof current.code === "string" && NETWORK_ERROR_CODES.has(current.code)) return true;
  }
  return false;
}

/** A failed read of a successful body, reported as the SDK reports it (an abort stays an abort, a broken limit as it is). */
function readError(error: unknown, call: CallFacts): unknown {
  if (isAbortError(error) || isProviderLimitError(error)) return error;
  return new APICallError({
    message: "Failed to process successful response",
    cause: error,
    url: call.url,
    requestBodyValues: call.body,
    statusCode: call.statusCode,
    responseHeaders: call.responseHeaders,
    ...(networkError(error) ? { isRetryable: true } : {}),
  });
}

/**
 * A successful answer's body read up to its first output chunk: kept (`Diverted`) when
 * output came first; handed back whole to the SDK as a new response when an error frame, a
 * chunk that is not valid, the end or a failed read came first. A broken limit is thrown
 * (the body cancelled): more than `maxBytesBeforeOutput` before the output, say.
 */
async function readToOutput(response: Incoming, limits: ProviderLimits, call: () => CallFacts): Promise<Diverted | Response> {
  const ok = response.status >= 200 && response.status < 300;
  if (!ok || !response.body) return toResponse(response);
  const events = new EventReader(response.body, limits);
  const chunks: Parsed[] = [];
  const handBack = (failure?: { error: unknown }) => toResponse(response, events.replay(failure));
  try {
    for (;;) {
      const batch = await events.nextChunks();
      if (batch === undefined) return handBack();
      let output = false;
      for (const parsed of batch) {
        chunks.push(parsed);
        if (output) continue;
        const { result } = parsed;
        if (!result.success || "error" in result.value) return handBack();
        output = isOutputChunk(result.value);
      }
      if (output) {
        events.recorded = undefined;
        return { events, chunks, call: call() };
      }
      if (events.bytes > limits.maxBytesBeforeOutput) {
        throw ProviderLimitError.over("maxBytesBeforeOutput", `sent more than ${limits.maxBytesBeforeOutput} bytes without any output`, limits.maxBytesBeforeOutput);
      }
    }
  } catch (error) {
    if (!isProviderLimitError(error)) return handBack({ error });
    await events.cancel(error);
    throw error;
  }
}

/** The parts of a kept body: `stream-start`, the chunks so far, then the rest as it is read. */
function partStream(diverted: Diverted, start: StreamStartPart, includeRawChunks: boolean): ReadableStream<LanguageModelV4StreamPart> {
  let transform: ChatChunkTransform;
  let enqueued = 0;
  const feed = (chunks: readonly Parsed[]) => {
    const results: ParseResult<ChatChunk>[] = includeRawChunks ? chunks.map((c) => c.result) : mergeRuns(chunks);
    for (const result of results) transform.chunk(result);
  };
  return new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      const sink = {
        enqueue(part?: LanguageModelV4StreamPart) {
          if (part === undefined) return;
          enqueued++;
          controller.enqueue(part);
        },
      };
      transform = new ChatChunkTransform(sink, includeRawChunks);
      sink.enqueue(start);
      feed(diverted.chunks);
      diverted.chunks = [];
    },
    async pull(controller) {
      // A pull must give a part (or end the stream): reads that complete no event give none.
      const before = enqueued;
      while (enqueued === before) {
        let chunks: Parsed[] | undefined;
        try {
          chunks = await diverted.events.nextChunks();
        } catch (error) {
          throw readError(error, diverted.call);
        }
        if (chunks === undefined) {
          transform.flush();
          controller.close();
          return;
        }
        feed(chunks);
      }
    },
    cancel(reason) {
      return diverted.events.cancel(reason);
    },
  });
}

/** The request body the SDK sent (its own JSON), for errors to report; its text if it is not JSON. */
function requestJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Its first part, which for the SDK's chat model is `stream-start`; the rest is cancelled. */
async function streamStart(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<StreamStartPart> {
  const reader = stream.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return value?.type === "stream-start" ? value : { type: "stream-start", warnings: [] };
}

export interface CompatibleChatSettings {
  baseURL: string;
  apiKey: string;
  /** A fetch to send requests with (tests); by default Node's HTTP client (http-transport.ts). */
  fetch?: typeof fetch;
  /** What the provider may send (limits.ts); by default DEFAULT_PROVIDER_LIMITS. */
  limits?: ProviderLimits;
}

/** An OpenAI-compatible server's model, through Chat Completions (see above). */
export function compatibleChatModel(modelId: string, settings: CompatibleChatSettings): LanguageModelV4 {
  const send = settings.fetch ? fetchTransport(settings.fetch) : httpTransport();
  const limits = settings.limits ?? DEFAULT_PROVIDER_LIMITS;
  // A whole (not streamed) answer, read by the SDK: within the answer's byte limit too.
  const whole: typeof fetch = async (input, init) => {
    const response = await send(input, init);
    const body = response.body && streamOf(boundedSource(response.body, limits.maxAnswerBytes, limits.maxAnswerBytes));
    return toResponse(response, body ?? null);
  };
  const sdk = createOpenAI({ apiKey: settings.apiKey, baseURL: settings.baseURL, fetch: whole }).chat(modelId);
  return {
    specificationVersion: "v4",
    provider: sdk.provider,
    modelId: sdk.modelId,
    supportedUrls: sdk.supportedUrls,
    doGenerate: (options) => sdk.doGenerate(options),
    async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
      let diverted: Diverted | undefined;
      const divert: typeof fetch = async (input, init) => {
        const response = await send(input, init);
        const kept = await readToOutput(response, limits, () => ({
          url: input instanceof Request ? input.url : String(input),
          statusCode: response.status,
          responseHeaders: Object.fromEntries(response.headers.entries()),
          body: typeof init?.body === "string" ? requestJson(init.body) : undefined,
        }));
        if (kept instanceof Response) return kept;
        diverted = kept;
        return toResponse(response, new Response("").body);
      };
      const model = createOpenAI({ apiKey: settings.apiKey, baseURL: settings.baseURL, fetch: divert }).chat(modelId);
      let result: LanguageModelV4StreamResult;
      try {
        result = await model.doStream(options);
      } catch (error) {
        await diverted?.events.cancel(error);
        throw error;
      }
      if (!diverted) return result;
      const start = await streamStart(result.stream);
      return { ...result, stream: partStream(diverted, start, options.includeRawChunks === true) };
    },
  };
}
