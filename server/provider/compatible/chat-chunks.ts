import type { LanguageModelV4FinishReason, LanguageModelV4StreamPart, LanguageModelV4Usage, SharedV4ProviderMetadata } from "@ai-sdk/provider";
import {
  type ParseResult,
  type ProviderStreamError,
  StreamingToolCallTracker,
  createLanguageModelResponseMetadata,
  createNullLanguageModelUsage,
  createProviderStreamError,
  generateId,
  safeParseJSON,
  zodSchema,
} from "@ai-sdk/provider-utils";
import { z } from "zod";
import { type Json, isNullish, isObject } from "./json-guards";

/** The `@ai-sdk/openai` release this file mirrors (pinned exactly in package.json; chat-stream.test.ts checks it). */
export const MIRRORED_SDK = { package: "@ai-sdk/openai", version: "4.0.118" } as const;

/**
 * THE MIRROR. The chunks of an OpenAI Chat Completions stream (`POST /chat/completions`,
 * `stream: true`) turned into the AI SDK's stream parts, the same parts `@ai-sdk/openai`'s
 * chat model makes of them (its `doStream` transform, MIRRORED_SDK): the schema, the mapping of finish
 * reasons, usage, refusals, tool calls, citations, log probabilities and error frames follow
 * that model's, and `chat-stream.test.ts` runs one set of streams through both.
 *
 * What differs is the cost of a chunk: the common ones (text, tool calls, finish reasons,
 * usage) are checked directly instead of by the zod schema, and runs of plain text chunks
 * that arrived in one read become one text delta. Every other chunk goes through the schema.
 */

const logprobsSchema = z.array(
  z.object({
    token: z.string(),
    logprob: z.number(),
    top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number() })),
  }),
);

const chunkSchema = z.union([
  z.object({
    id: z.string().nullish(),
    created: z.number().nullish(),
    model: z.string().nullish(),
    choices: z.array(
      z.object({
        delta: z
          .object({
            role: z.enum(["assistant"]).nullish(),
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number(),
                  id: z.string().nullish(),
                  type: z.literal("function").nullish(),
                  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }),
                }),
              )
              .nullish(),
            annotations: z
              .array(
                z.object({
                  type: z.literal("url_citation"),
                  url_citation: z.object({ start_index: z.number(), end_index: z.number(), url: z.string(), title: z.string() }),
                }),
              )
              .nullish(),
          })
          .nullish(),
        logprobs: z.object({ content: logprobsSchema.nullish(), refusal: logprobsSchema.nullish() }).nullish(),
        finish_reason: z.string().nullish(),
        index: z.number(),
      }),
    ),
    usage: z
      .object({
        prompt_tokens: z.number().nullish(),
        completion_tokens: z.number().nullish(),
        total_tokens: z.number().nullish(),
        prompt_tokens_details: z.object({ cached_tokens: z.number().nullish(), cache_write_tokens: z.number().nullish() }).nullish(),
        completion_tokens_details: z
          .object({
            reasoning_tokens: z.number().nullish(),
            accepted_prediction_tokens: z.number().nullish(),
            rejected_prediction_tokens: z.number().nullish(),
          })
          .nullish(),
      })
      .nullish(),
  }),
  z.object({
    error: z.object({
      message: z.string(),
      type: z.string().nullish(),
      param: z.unknown().nullish(),
      code: z.union([z.string(), z.number()]).nullish(),
    }),
  }),
]);

export type ChatChunk = z.infer<typeof chunkSchema>;
type ChatData = Extract<ChatChunk, { choices: unknown }>;
type ChatUsage = NonNullable<ChatData["usage"]>;
type Logprob = z.infer<typeof logprobsSchema>[number];

const chunkValidator = zodSchema(chunkSchema);

/** A parsed `data:` payload; `mergeKey` is set on a chunk that is plain text and nothing else. */
export interface Parsed {
  result: ParseResult<ChatChunk>;
  mergeKey?: string;
}

const isNumberish = (value: unknown) => isNullish(value) || typeof value === "number";
const isStringish = (value: unknown) => isNullish(value) || typeof value === "string";

function isUsage(value: unknown): boolean {
  if (isNullish(value)) return true;
  if (!isObject(value) || !isNumberish(value.prompt_tokens) || !isNumberish(value.completion_tokens) || !isNumberish(value.total_tokens)) return false;
  const prompt = value.prompt_tokens_details;
  if (!isNullish(prompt) && (!isObject(prompt) || !isNumberish(prompt.cached_tokens) || !isNumberish(prompt.cache_write_tokens))) return false;
  const completion = value.completion_tokens_details;
  return (
    isNullish(completion) ||
    (isObject(completion) && isNumberish(completion.reasoning_tokens) && isNumberish(completion.accepted_prediction_tokens) && isNumberish(completion.rejected_prediction_tokens))
  );
}

function isToolCallDelta(value: unknown): boolean {
  if (!isObject(value) || typeof value.index !== "number" || !isStringish(value.id)) return false;
  if (!isNullish(value.type) && value.type !== "function") return false;
  const fn = value.function;
  return isObject(fn) && isStringish(fn.name) && isStringish(fn.arguments);
}

/**
 * Whether `value` is a chunk the schema accepts, checked directly (the common chunks: text,
 * refusals, tool calls, finish reasons, usage). A chunk with log probabilities or citations,
 * an error frame, or anything the checks reject goes to the schema, which decides. Keys the
 * schema does not know are ignored, as the schema ignores them.
 */
function isPlainChunk(value: unknown): value is ChatData {
  if (!isObject(value) || "error" in value) return false;
  const { choices } = value;
  if (!Array.isArray(choices)) return false;
  if (!isStringish(value.id) || !isNumberish(value.created) || !isStringish(value.model) || !isUsage(value.usage)) return false;
  for (const choice of choices as unknown[]) {
    if (!isObject(choice) || typeof choice.index !== "number" || !isStringish(choice.finish_reason) || !isNullish(choice.logprobs)) return false;
    const delta = choice.delta;
    if (isNullish(delta)) continue;
    if (!isObject(delta) || !isStringish(delta.content) || !isStringish(delta.refusal) || !isNullish(delta.annotations)) return false;
    if (!isNullish(delta.role) && delta.role !== "assistant") return false;
    const calls = delta.tool_calls;
    if (!isNullish(calls) && (!Array.isArray(calls) || !calls.every(isToolCallDelta))) return false;
  }
  return true;
}

/** A chunk whose only content is a piece of text of its one choice (what merges with its neighbours). */
function textOnly(chunk: ChatData): boolean {
  const choice = chunk.choices[0];
  const delta = choice?.delta;
  return (
    chunk.choices.length === 1 &&
    isNullish(chunk.usage) &&
    isNullish(choice?.finish_reason) &&
    !isNullish(delta) &&
    typeof delta.content === "string" &&
    isNullish(delta.role) &&
    isNullish(delta.refusal) &&
    isNullish(delta.tool_calls)
  );
}

/**
 * One `data:` payload parsed and validated, at once when the direct checks accept it. Text
 * that could hold a prototype-polluting key and chunks the checks do not accept go through
 * the AI SDK's `safeParseJSON` with the schema, which gives the same results and errors as
 * `@ai-sdk/openai` (the promise).
 */
export function parseChunk(data: string): Parsed | Promise<Parsed> {
  if (!data.includes("__proto__") && !data.includes("constructor")) {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      value = undefined; // the schema path below reports the JSON error
    }
    if (isPlainChunk(value)) {
      const choice = value.choices[0];
      // Chunks merge only with chunks of the same metadata, which the merged one keeps.
      const mergeKey = choice && textOnly(value) ? `${String(value.id)}\0${String(value.model)}\0${String(value.created)}\0${choice.index}` : undefined;
      return { result: { success: true, value, rawValue: value }, ...(mergeKey !== undefined ? { mergeKey } : {}) };
    }
  }
  return safeParseJSON({ text: data, schema: chunkValidator }).then((result) => ({ result }));
}

/** Whether a chunk carries output (what ends the wait for an error sent before any). */
export function isOutputChunk(chunk: ChatChunk): boolean {
  if ("error" in chunk) return false;
  return chunk.choices.some(({ delta }) => {
    return (
      (!isNullish(delta?.content) && delta.content.length > 0) ||
      (!isNullish(delta?.refusal) && delta.refusal.length > 0) ||
      (!isNullish(delta?.tool_calls) && delta.tool_calls.length > 0) ||
      (!isNullish(delta?.annotations) && delta.annotations.length > 0)
    );
  });
}

/** Consecutive plain-text chunks of one choice as one chunk with their texts joined. */
export function mergeRuns(parsed: readonly Parsed[]): ParseResult<ChatChunk>[] {
  const out: ParseResult<ChatChunk>[] = [];
  let i = 0;
  while (i < parsed.length) {
    const first = parsed[i];
    if (!first) break;
    let end = i + 1;
    const key = first.mergeKey;
    if (key !== undefined) while (parsed[end]?.mergeKey === key) end++;
    const value = first.result.success ? first.result.value : undefined;
    if (end - i > 1 && value && "choices" in value && value.choices[0]) {
      const texts: string[] = [];
      for (let j = i; j < end; j++) {
        const item = parsed[j]?.result;
        if (item?.success && "choices" in item.value) texts.push(item.value.choices[0]?.delta?.content ?? "");
      }
      const choice = value.choices[0];
      const merged: ChatData = { ...value, choices: [{ ...choice, delta: { ...choice.delta, content: texts.join("") } }] };
      out.push({ success: true, value: merged, rawValue: merged });
    } else {
      out.push(first.result);
    }
    i = end;
  }
  return out;
}

/** The stream parts' sink (what `StreamingToolCallTracker` writes to as well). */
export interface PartSink {
  enqueue(part?: LanguageModelV4StreamPart): void;
}

/**
 * The state of one streamed answer: chunks in, stream parts out, `flush` at the end of the
 * stream. Mirrors `@ai-sdk/openai`'s chat transform step by step.
 */
export class ChatChunkTransform {
  private readonly tracker: StreamingToolCallTracker;
  private finishReason: LanguageModelV4FinishReason = { unified: "interrupted", raw: undefined };
  private usage: ChatUsage | undefined;
  private metadataExtracted = false;
  private activeText = false;
  private refusal = false;
  private rawFinishReason: string | undefined;
  private hasLogprobs = false;
  private readonly logprobs: Logprob[] = [];
  private readonly providerMetadata: SharedV4ProviderMetadata & { openai: NonNullable<SharedV4ProviderMetadata[string]> } = { openai: {} };

  constructor(
    private readonly sink: PartSink,
    private readonly includeRawChunks: boolean,
  ) {
    this.tracker = new StreamingToolCallTracker(sink, { generateId, typeValidation: "if-present" });
  }

  chunk(chunk: ParseResult<ChatChunk>): void {
    const sink = this.sink;
    if (this.includeRawChunks) sink.enqueue({ type: "raw", rawValue: chunk.rawValue });
    if (!chunk.success) {
      this.finishReason = { unified: "error", raw: undefined };
      this.rawFinishReason = undefined;
      sink.enqueue({ type: "error", error: chunk.error });
      return;
    }
    const value = chunk.value;
    if ("error" in value) {
      this.finishReason = { unified: "error", raw: undefined };
      this.rawFinishReason = undefined;
      sink.enqueue({ type: "error", error: openAIStreamError(value.error) ?? value.error });
      return;
    }
    // Metadata once; Azure may send a first chunk without any (created 0 is no timestamp).
    if (!this.metadataExtracted) {
      const metadata = createLanguageModelResponseMetadata({ id: value.id, model: value.model, created: value.created || undefined });
      if (Object.values(metadata).some(Boolean)) {
        this.metadataExtracted = true;
        sink.enqueue({ type: "response-metadata", ...metadata });
      }
    }
    if (!isNullish(value.usage)) {
      this.usage = value.usage;
      const details = value.usage.completion_tokens_details;
      if (!isNullish(details?.accepted_prediction_tokens)) this.providerMetadata.openai.acceptedPredictionTokens = details.accepted_prediction_tokens;
      if (!isNullish(details?.rejected_prediction_tokens)) this.providerMetadata.openai.rejectedPredictionTokens = details.rejected_prediction_tokens;
    }
    const choice = value.choices[0];
    // Mapped at flush: a refusal in the finishing chunk turns `stop` into `content-filter`.
    if (!isNullish(choice?.finish_reason)) this.rawFinishReason = choice.finish_reason;
    if (!isNullish(choice?.logprobs)) {
      const { content, refusal } = choice.logprobs;
      if (!isNullish(content) || !isNullish(refusal)) {
        this.hasLogprobs = true;
        this.logprobs.push(...(content ?? []), ...(refusal ?? []));
      }
    }
    const delta = choice?.delta;
    if (isNullish(delta)) return;
    const texts: string[] = [];
    if (!isNullish(delta.content) && delta.content.length > 0) texts.push(delta.content);
    if (!isNullish(delta.refusal) && delta.refusal.length > 0) {
      this.refusal = true;
      texts.push(delta.refusal);
    }
    if (texts.length === 0 && delta.content === "") texts.push("");
    for (const text of texts) {
      if (!this.activeText) {
        sink.enqueue({ type: "text-start", id: "0" });
        this.activeText = true;
      }
      sink.enqueue({ type: "text-delta", id: "0", delta: text });
    }
    if (!isNullish(delta.tool_calls)) for (const call of delta.tool_calls) this.tracker.processDelta(call);
    if (!isNullish(delta.annotations)) {
      for (const annotation of delta.annotations) {
        sink.enqueue({ type: "source", sourceType: "url", id: generateId(), url: annotation.url_citation.url, title: annotation.url_citation.title });
      }
    }
  }

  flush(): void {
    if (this.activeText) this.sink.enqueue({ type: "text-end", id: "0" });
    this.tracker.flush();
    if (this.rawFinishReason !== undefined) {
      this.finishReason = { unified: mapFinishReason(this.rawFinishReason, this.refusal), raw: this.rawFinishReason };
    }
    if (this.hasLogprobs) this.providerMetadata.openai.logprobs = this.logprobs;
    this.sink.enqueue({ type: "finish", finishReason: this.finishReason, usage: convertUsage(this.usage), providerMetadata: this.providerMetadata });
  }
}

function mapFinishReason(reason: string, refusal: boolean): LanguageModelV4FinishReason["unified"] {
  switch (reason) {
    case "stop":
      return refusal ? "content-filter" : "stop";
    case "length":
      return "length";
    case "content_filter":
      return "content-filter";
    case "function_call":
    case "tool_calls":
      return "tool-calls";
    default:
      return "other";
  }
}

function convertUsage(usage: ChatUsage | undefined): LanguageModelV4Usage {
  if (usage === undefined) return createNullLanguageModelUsage();
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens ?? undefined;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  return {
    inputTokens: { total: prompt, noCache: prompt - cached - (cacheWrite ?? 0), cacheRead: cached, cacheWrite },
    outputTokens: { total: completion, text: Math.max(0, completion - reasoning), reasoning },
    raw: usage,
  };
}

/** An error frame as `@ai-sdk/openai` reports it mid-stream: status, retryability and the frame. */
function openAIStreamError(frame: unknown): ProviderStreamError | undefined {
  if (!isRecord(frame)) return undefined;
  let found: { message: string; code: string | number | undefined; type: string | undefined } | undefined;
  if (frame.type === "response.failed") {
    const response = isRecord(frame.response) ? frame.response : undefined;
    const error = isRecord(response?.error) ? response.error : undefined;
    if (typeof error?.message === "string") found = { message: error.message, code: stringOrNumber(error.code), type: "response.failed" };
  } else {
    const nested = isRecord(frame.error) ? frame.error : undefined;
    const error = nested ?? frame;
    if (typeof error.message === "string" && (nested !== undefined || typeof error.type === "string" || "code" in error || "param" in error)) {
      found = { message: error.message, code: stringOrNumber(error.code), type: typeof error.type === "string" ? error.type : undefined };
    }
  }
  if (!found) return undefined;
  const statusCode = streamErrorStatus(found.code, found.type);
  const retryable = found.code === "insufficient_quota" || found.type === "insufficient_quota" ? false : statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500;
  return createProviderStreamError({ message: found.message, type: found.type, code: found.code, statusCode, isRetryable: retryable, data: frame });
}

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null;
const stringOrNumber = (value: unknown) => (typeof value === "string" || typeof value === "number" ? value : undefined);

function streamErrorStatus(code: string | number | undefined, type: string | undefined): number {
  const explicit = typeof code === "string" && /^\d{3}$/.test(code) ? Number(code) : code;
  if (typeof explicit === "number" && Number.isInteger(explicit) && explicit >= 400 && explicit <= 599) return explicit;
  const words = [code, type]
    .filter((v) => v !== undefined)
    .join(" ")
    .toLowerCase();
  if (["insufficient_quota", "rate_limit"].some((t) => words.includes(t))) return 429;
  if (words.includes("authentication")) return 401;
  if (words.includes("permission")) return 403;
  if (words.includes("not_found")) return 404;
  if (["invalid", "bad_request", "context_length"].some((t) => words.includes(t))) return 400;
  if (words.includes("overload")) return 503;
  if (words.includes("timeout")) return 504;
  return 500;
}
