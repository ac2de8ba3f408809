import type { AssistantContent, ModelMessage, TextPart, ToolContent, UserContent } from "ai";
import type { FilePart, WithParts } from "./message";

/**
 * What the model sees (toModelMessages). Stored history → AI SDK messages:
 * empty messages are skipped, ignored/empty user text dropped, a compaction marker
 * becomes "What did we do so far?", failed assistant turns are skipped (unless aborted
 * with real content), cleared tool outputs are replaced, and a tool left pending or
 * running gets an "interrupted" error result so that no call is without a result.
 * Attached text files become text; images stay image parts for a model that sees them
 * (the Chat Completions API gets them as `image_url` data URLs) and become a short note
 * for one that does not.
 */

export const COMPACTION_QUESTION = "What did we do so far?";
export const CLEARED_OUTPUT = "[Old tool result content cleared]";
export const INTERRUPTED = "[Tool execution was interrupted]";

const TEXT_MIME = /^(text\/|application\/(json|xml|javascript|typescript|x-sh|x-yaml|yaml|toml|sql))/;

function decodeDataUrl(url: string): string | undefined {
  const match = /^data:([^,]*?)(;base64)?,(.*)$/s.exec(url);
  if (!match) return undefined;
  const body = match[3] ?? "";
  return match[2] ? Buffer.from(body, "base64").toString("utf8") : decodeURIComponent(body);
}

/** What a model that cannot see images gets in place of one. */
export function imageNote(name: string): string {
  return `[Image ${name} attached: this model cannot see images, so its content is not included.]`;
}

function fileContent(part: FilePart, options: ModelMessageOptions): Exclude<UserContent, string>[number] | undefined {
  const name = part.filename ?? part.source?.path ?? "file";
  if (TEXT_MIME.test(part.mime)) {
    const text = decodeDataUrl(part.url);
    if (text === undefined) return undefined;
    return { type: "text", text: `Called the read tool on ${name}:\n${text}` };
  }
  if (part.url.startsWith("data:")) {
    if (part.mime.startsWith("image/") && options.images === false) return { type: "text", text: imageNote(name) };
    return { type: "file", data: part.url, mediaType: part.mime, ...(part.filename ? { filename: part.filename } : {}) };
  }
  return undefined;
}

type ProviderOptions = NonNullable<TextPart["providerOptions"]>;

/** A part's stored provider metadata, sent back to the provider (reasoning signatures, item ids). */
function providerOptions(metadata: Record<string, unknown> | undefined): { providerOptions?: ProviderOptions } {
  if (!metadata) return {};
  const options: ProviderOptions = {};
  for (const [provider, value] of Object.entries(metadata)) {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) options[provider] = value as ProviderOptions[string];
  }
  return Object.keys(options).length ? { providerOptions: options } : {};
}

function hasRealContent(message: WithParts): boolean {
  return message.parts.some(
    (p) => (p.type === "text" && p.text.trim() !== "") || (p.type === "tool" && p.state.status !== "pending"),
  );
}

export interface ModelMessageOptions {
  /** Whether the model sees images (unset: images are sent as image parts, as to a vision model). */
  images?: boolean | undefined;
}

export function toModelMessages(history: WithParts[], options: ModelMessageOptions = {}): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of history) {
    if (message.parts.length === 0) continue;
    if (message.info.role === "user") {
      const content: Exclude<UserContent, string> = [];
      for (const part of message.parts) {
        if (part.type === "text") {
          if (part.ignored || part.text.trim() === "") continue;
          content.push({ type: "text", text: part.text });
        } else if (part.type === "file") {
          const file = fileContent(part, options);
          if (file) content.push(file);
        } else if (part.type === "compaction") {
          content.push({ type: "text", text: COMPACTION_QUESTION });
        } else if (part.type === "subtask") {
          content.push({ type: "text", text: `The user asked the ${part.agent} agent to: ${part.description}` });
        }
      }
      if (content.length) out.push({ role: "user", content });
      continue;
    }

    const error = message.info.error;
    if (error && !(error.name === "AbortedError" && hasRealContent(message))) continue;
    const assistant: Exclude<AssistantContent, string> = [];
    const results: ToolContent = [];
    for (const part of message.parts) {
      if (part.type === "text") {
        if (part.text.trim() !== "") assistant.push({ type: "text", text: part.text, ...providerOptions(part.metadata) });
      } else if (part.type === "reasoning") {
        // Reasoning may be empty but signed (encrypted reasoning): the metadata is what counts.
        if (part.text.trim() !== "" || part.metadata) assistant.push({ type: "reasoning", text: part.text, ...providerOptions(part.metadata) });
      } else if (part.type === "tool") {
        assistant.push({ type: "tool-call", toolCallId: part.callId, toolName: part.tool, input: part.state.input, ...providerOptions(part.metadata) });
        const state = part.state;
        const output =
          state.status === "completed"
            ? { type: "text" as const, value: state.time.compacted ? CLEARED_OUTPUT : state.output }
            : state.status === "error"
              ? { type: "error-text" as const, value: state.error }
              : { type: "error-text" as const, value: INTERRUPTED };
        results.push({ type: "tool-result", toolCallId: part.callId, toolName: part.tool, output });
      }
    }
    if (assistant.length) out.push({ role: "assistant", content: assistant });
    if (results.length) out.push({ role: "tool", content: results });
  }
  return out;
}
