import { type ModelMessage, type TextStreamPart, type ToolSet, experimental_streamTextLowMemory as streamTextOnce } from "ai";
import type { ResolvedModel } from "../services";

/**
 * The one door to the model: every call — an agent's step, a compaction summary, a
 * title — goes through here. The SDK's own retries are off (the processor retries with
 * its own rules and shows them), and errors arrive in the stream, where the processor
 * classifies them (the SDK's default `onError` would only log them a second time).
 */

export interface LlmRequest {
  model: ResolvedModel;
  system: string;
  messages: ModelMessage[];
  tools?: ToolSet;
  abortSignal: AbortSignal;
}

export interface StreamHandle {
  fullStream: AsyncIterable<TextStreamPart<ToolSet>>;
}

/**
 * Start a streamed model call. Its one consumer reads `fullStream` once, so the AI SDK's
 * single-consumer variant is used: `streamText` keeps every chunk for replay (a tee of the
 * whole stream), which costs a copy per chunk and memory for the whole answer.
 */
export function stream(request: LlmRequest): StreamHandle {
  return streamTextOnce({
    model: request.model.language,
    system: request.system,
    messages: request.messages,
    ...(request.tools ? { tools: request.tools } : {}),
    abortSignal: request.abortSignal,
    maxRetries: 0,
    onError: () => undefined,
  });
}

/** The whole text of a model's answer; a provider error or an abort rejects. */
export async function text(request: LlmRequest): Promise<string> {
  let answer = "";
  for await (const event of stream(request).fullStream) {
    if (event.type === "text-delta") answer += event.text;
    else if (event.type === "error") throw event.error instanceof Error ? event.error : new Error(String(event.error));
    else if (event.type === "abort") throw new Error("the model call was aborted");
  }
  return answer;
}
