import { type Block, type FakeProvider, type WireError, type WireReply, type WireUsage, type Write, header, splitWrites, sse, startFakeProvider } from "./fake-provider";

/**
 * A fake Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`): chunks
 * of candidates as its documentation shows — thoughts (`thought: true`), text, a
 * functionCall (the Gemini API sends a call's arguments whole, so its event is cut across
 * network writes, one per piece), a last chunk with the finish reason and usageMetadata
 * (cached and thoughts tokens) — and its errors, with the key (`x-goog-api-key`) of each
 * request recorded. The provider's baseURL is `${fake.url}/v1beta`.
 */

export function startFakeGoogle(port?: number): Promise<FakeProvider> {
  return startFakeProvider({
    keyOf: (headers, url) => header(headers, "x-goog-api-key") ?? url.searchParams.get("key") ?? undefined,
    fallback: googleReply.error("server"),
    ...(port === undefined ? {} : { port }),
  });
}

const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) =>
  sse({ candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }], modelVersion: "gemini-fake" });

function blockWrites(block: Block): Write[] {
  if (block.kind === "gate") return [{ kind: "gate", until: block.until }];
  if (block.kind === "reasoning") return block.deltas.map((text) => ({ kind: "raw", text: chunk([{ text, thought: true }]) }));
  if (block.kind === "text") return block.deltas.map((text) => ({ kind: "raw", text: chunk([{ text }]) }));
  const args = JSON.parse(block.pieces.join("")) as unknown;
  return splitWrites(chunk([{ functionCall: { name: block.name, args } }]), Math.max(2, block.pieces.length));
}

const ERRORS: Record<WireError, { status: number; state: string; message: string; headers?: Record<string, string>; reason?: string }> = {
  "rate-limit": { status: 429, state: "RESOURCE_EXHAUSTED", message: "Resource has been exhausted (e.g. check quota).", headers: { "retry-after": "1" } },
  server: { status: 500, state: "INTERNAL", message: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting" },
  overloaded: { status: 503, state: "UNAVAILABLE", message: "The model is overloaded. Please try again later." },
  context: { status: 400, state: "INVALID_ARGUMENT", message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)." },
  "bad-key": { status: 400, state: "INVALID_ARGUMENT", message: "API key not valid. Please pass a valid API key.", reason: "API_KEY_INVALID" },
};

function errorBody(kind: WireError) {
  const e = ERRORS[kind];
  const details = e.reason ? [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: e.reason, domain: "googleapis.com" }] : [];
  return { error: { code: e.status, message: e.message, status: e.state, details } };
}

export const googleReply = {
  answer(blocks: Block[], usage: WireUsage, finishReason: "STOP" | "MAX_TOKENS" = "STOP"): WireReply {
    const reasoning = usage.reasoning ?? 0;
    const usageMetadata = {
      promptTokenCount: usage.input + (usage.cacheRead ?? 0),
      candidatesTokenCount: usage.output - reasoning,
      totalTokenCount: usage.input + (usage.cacheRead ?? 0) + usage.output,
      ...(usage.cacheRead ? { cachedContentTokenCount: usage.cacheRead } : {}),
      ...(reasoning ? { thoughtsTokenCount: reasoning } : {}),
    };
    const last = sse({ candidates: [{ content: { parts: [{ text: "" }], role: "model" }, finishReason, index: 0 }], usageMetadata, modelVersion: "gemini-fake" });
    return { kind: "stream", writes: [...blocks.flatMap(blockWrites), { kind: "raw", text: last }] };
  },
  text(...deltas: string[]): WireReply {
    return googleReply.answer([{ kind: "text", deltas }], { input: 10, output: deltas.length });
  },
  error(kind: WireError): WireReply {
    const e = ERRORS[kind];
    return { kind: "error", status: e.status, ...(e.headers ? { headers: e.headers } : {}), body: errorBody(kind) };
  },
  /** An error object sent inside a stream that had started. */
  streamError(text: string, kind: WireError): WireReply {
    return { kind: "stream", writes: [{ kind: "raw", text: chunk([{ text }]) }, { kind: "raw", text: sse(errorBody(kind)) }] };
  },
};
