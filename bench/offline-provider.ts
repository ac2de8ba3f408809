/**
 * Parley's built-in offline model behind an OpenAI-compatible server, in its own process:
 * `POST /v1/chat/completions` (streamed only) turns the Chat Completions request back into
 * the AI SDK prompt and tools, asks the offline model (`createOfflineModel`, the same model
 * the app runs in process) and streams its answer as `chat.completion.chunk` events, one
 * event per delta, as the model paces them. The app reaches it as a real provider, through
 * `compatibleChatModel(modelId, { baseURL, apiKey })` (the "compatible" provider).
 *
 * What cannot cross the Chat Completions API: the model's reasoning (no standard field; it
 * is dropped, so it costs time but sends nothing) and, on the way in, reasoning parts and
 * images of the conversation (the client's converter never sends the first; the second are
 * ignored). Tool results arrive as plain text, so a failed tool's result is text to the
 * model here (`{"error":…}`), not an error. Call ids are the model's own, derived from the
 * prompt it sees, which is why they differ from the in-process model's.
 *
 * Errors: a failure the model raises before streaming (a simulated 429, 500, context
 * overflow…) is answered with its HTTP status, headers and body, as a provider does; one
 * during the stream (a simulated dropped connection) drops the connection.
 *
 * Forked (`fork(file, [], { execArgv: ["--import", "tsx"] })`): listens on 127.0.0.1 (a free
 * port, or `--port n`) and sends `{ port }`; `{ count: true }` answers `{ count: { stop,
 * toolCalls, streams } }` (answers that finished with "stop" or "length" / with tool calls
 * since the start, and answers still streaming); `{ tokensPerSecond: n }` paces the answers
 * that follow (a new model; 0 = no delays) and answers `{ ok: true }`. Exits when the parent
 * disconnects. Run directly (`tsx bench/offline-provider.ts [--port n]
 * [--tokens-per-second n]`), it prints its base URL. Importing it starts nothing.
 */
import { realpathSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import {
  APICallError,
  type JSONSchema7,
  type LanguageModelV4CallOptions,
  type LanguageModelV4FunctionTool,
  type LanguageModelV4Message,
  type LanguageModelV4Prompt,
  type LanguageModelV4StreamPart,
  type LanguageModelV4ToolChoice,
  type LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { OFFLINE_MODEL_ID, type OfflineLanguageModel, createOfflineModel } from "../server/provider/offline";

export interface OfflineProviderOptions {
  /** Pace of the answers in estimated tokens per second (0 = no delays); the offline model's default when unset. */
  tokensPerSecond?: number;
  /** Clock of the model (the `created` field of the chunks). */
  now?: () => Date;
}

export interface OfflineProviderCounts {
  /** Answers that finished with "stop" (or "length") since the start. */
  stop: number;
  /** Answers that finished asking for tool calls since the start. */
  toolCalls: number;
  /** Answers still streaming. */
  streams: number;
}

export interface OfflineProviderServer {
  readonly server: http.Server;
  /** Listen on 127.0.0.1 (port 0 = any free port); resolves with the port. */
  listen(port?: number): Promise<number>;
  counts(): OfflineProviderCounts;
  /** A new model with this pace for the answers that follow (undefined = the model's default). */
  pace(tokensPerSecond: number | undefined): void;
  close(): Promise<void>;
}

/** What the model sees of a Chat Completions request. */
interface ChatRequest {
  model: string;
  prompt: LanguageModelV4Prompt;
  tools: LanguageModelV4FunctionTool[] | undefined;
  toolChoice: LanguageModelV4ToolChoice | undefined;
}

class BadRequest extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The text of a message's content: a string, or the text parts of an array of parts (others ignored). */
function texts(content: unknown, where: string): string[] {
  if (typeof content === "string") return [content];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw new BadRequest(`${where}: content must be a string or an array of parts`);
  const out: string[] = [];
  for (const part of content as unknown[]) {
    if (isObject(part) && part.type === "text" && typeof part.text === "string") out.push(part.text);
  }
  return out;
}

/** Tool-call arguments as the AI SDK keeps them in a prompt: the parsed value (the raw text when it is not JSON). */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function toPrompt(messages: unknown): LanguageModelV4Prompt {
  if (!Array.isArray(messages)) throw new BadRequest("messages must be an array");
  const prompt: LanguageModelV4Prompt = [];
  const toolNames = new Map<string, string>();
  (messages as unknown[]).forEach((message, i) => {
    const where = `messages[${i}]`;
    if (!isObject(message)) throw new BadRequest(`${where} must be an object`);
    switch (message.role) {
      case "system":
      case "developer":
        prompt.push({ role: "system", content: texts(message.content, where).join("\n") });
        return;
      case "user":
        prompt.push({ role: "user", content: texts(message.content, where).map((text) => ({ type: "text", text })) });
        return;
      case "assistant": {
        const content: Extract<LanguageModelV4Message, { role: "assistant" }>["content"] = [];
        const text = texts(message.content, where).join("");
        if (text) content.push({ type: "text", text });
        const calls: unknown = message.tool_calls ?? [];
        if (!Array.isArray(calls)) throw new BadRequest(`${where}.tool_calls must be an array`);
        (calls as unknown[]).forEach((call, j) => {
          const fn = isObject(call) ? call.function : undefined;
          if (!isObject(call) || typeof call.id !== "string" || !isObject(fn) || typeof fn.name !== "string") {
            throw new BadRequest(`${where}.tool_calls[${j}] must have an id and a function name`);
          }
          toolNames.set(call.id, fn.name);
          content.push({ type: "tool-call", toolCallId: call.id, toolName: fn.name, input: parseArguments(typeof fn.arguments === "string" ? fn.arguments : "{}") });
        });
        prompt.push({ role: "assistant", content });
        return;
      }
      case "tool": {
        if (typeof message.tool_call_id !== "string") throw new BadRequest(`${where}.tool_call_id must be a string`);
        const toolCallId = message.tool_call_id;
        const result = {
          type: "tool-result" as const,
          toolCallId,
          toolName: toolNames.get(toolCallId) ?? "unknown",
          output: { type: "text" as const, value: texts(message.content, where).join("") },
        };
        // Results of one step are one tool message of the prompt, as the AI SDK builds it.
        const last = prompt[prompt.length - 1];
        if (last?.role === "tool") last.content.push(result);
        else prompt.push({ role: "tool", content: [result] });
        return;
      }
      default:
        throw new BadRequest(`${where}: unknown role ${JSON.stringify(message.role)}`);
    }
  });
  return prompt;
}

function toTools(tools: unknown): LanguageModelV4FunctionTool[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw new BadRequest("tools must be an array");
  return (tools as unknown[]).map((tool, i) => {
    const fn = isObject(tool) ? tool.function : undefined;
    if (!isObject(tool) || tool.type !== "function" || !isObject(fn) || typeof fn.name !== "string") {
      throw new BadRequest(`tools[${i}] must be a function tool with a name`);
    }
    const inputSchema: JSONSchema7 = isObject(fn.parameters) ? (fn.parameters as JSONSchema7) : { type: "object", properties: {} };
    return { type: "function", name: fn.name, ...(typeof fn.description === "string" ? { description: fn.description } : {}), inputSchema };
  });
}

function toToolChoice(choice: unknown): LanguageModelV4ToolChoice | undefined {
  if (choice === "auto" || choice === "none" || choice === "required") return { type: choice };
  if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === "string") return { type: "tool", toolName: choice.function.name };
  return undefined;
}

function parseRequest(body: string): ChatRequest {
  let json: unknown;
  try {
    json = JSON.parse(body) as unknown;
  } catch (error) {
    throw new BadRequest(`the body is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isObject(json)) throw new BadRequest("the body must be a JSON object");
  if (json.stream !== true) throw new BadRequest("only streamed chat completions are served here (stream: true)");
  return {
    model: typeof json.model === "string" ? json.model : OFFLINE_MODEL_ID,
    prompt: toPrompt(json.messages),
    tools: toTools(json.tools),
    toolChoice: toToolChoice(json.tool_choice),
  };
}

function errorBody(message: string, type: string): string {
  return JSON.stringify({ error: { message, type, param: null, code: null } });
}

function finishReason(unified: string): "stop" | "tool_calls" | "length" {
  if (unified === "tool-calls") return "tool_calls";
  if (unified === "length") return "length";
  return "stop";
}

/** The V4 usage in Chat Completions terms: the client's conversion gives the same numbers back. */
function chatUsage(usage: LanguageModelV4Usage): Record<string, unknown> {
  const prompt = usage.inputTokens.total ?? 0;
  const completion = usage.outputTokens.total ?? 0;
  const cached = usage.inputTokens.cacheRead;
  const cacheWrite = usage.inputTokens.cacheWrite;
  const reasoning = usage.outputTokens.reasoning;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(cached !== undefined || cacheWrite !== undefined
      ? { prompt_tokens_details: { ...(cached !== undefined ? { cached_tokens: cached } : {}), ...(cacheWrite !== undefined ? { cache_write_tokens: cacheWrite } : {}) } }
      : {}),
    ...(reasoning !== undefined ? { completion_tokens_details: { reasoning_tokens: reasoning } } : {}),
  };
}

const isAbort = (error: unknown) => error instanceof Error && error.name === "AbortError";

export function createOfflineProviderServer(options: OfflineProviderOptions = {}): OfflineProviderServer {
  const modelFor = (tokensPerSecond: number | undefined): OfflineLanguageModel =>
    createOfflineModel({ ...(tokensPerSecond === undefined ? {} : { tokensPerSecond }), ...(options.now ? { now: options.now } : {}) });
  let model = modelFor(options.tokensPerSecond);
  const counts = { stop: 0, toolCalls: 0, streams: 0 };
  let answers = 0;

  /** Stream the model's answer to `request` (the HTTP request is read; `res` untouched). */
  async function answer(request: ChatRequest, res: http.ServerResponse): Promise<void> {
    const id = `chatcmpl-offline-${++answers}`;
    const abort = new AbortController();
    let done = false;
    res.on("close", () => {
      if (!done) abort.abort(new DOMException("The client closed the request", "AbortError"));
    });
    let created = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
    let started = false;
    const write = (data: string): Promise<void> | undefined => {
      if (res.write(data)) return undefined;
      return new Promise((resolve) => {
        const go = () => {
          res.off("drain", go);
          res.off("close", go);
          resolve();
        };
        res.on("drain", go);
        res.on("close", go);
      });
    };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    const start = () => {
      if (started) return;
      started = true;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      res.write(chunk({ role: "assistant", content: "" }));
    };
    const fail = (error: unknown) => {
      if (res.destroyed || abort.signal.aborted) return;
      if (started) {
        // Mid-stream: what a provider's broken connection looks like to the client. The
        // socket ends once what was written is flushed (res.destroy() would drop it), without
        // the body's last chunk; destroyed if the client keeps its side open.
        const socket = res.socket;
        if (!socket) {
          res.destroy();
          return;
        }
        socket.end();
        setTimeout(() => socket.destroy(), 1000).unref();
        return;
      }
      if (APICallError.isInstance(error)) {
        const headers: Record<string, string> = { "content-type": "application/json" };
        for (const [name, value] of Object.entries(error.responseHeaders ?? {})) {
          if (name.toLowerCase() !== "content-type" && name.toLowerCase() !== "content-length") headers[name] = value;
        }
        res.writeHead(error.statusCode ?? 500, headers).end(error.responseBody ?? errorBody(error.message, "server_error"));
        return;
      }
      res.writeHead(500, { "content-type": "application/json" }).end(errorBody(error instanceof Error ? error.message : String(error), "server_error"));
    };

    counts.streams++;
    let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart> | undefined;
    try {
      const call: LanguageModelV4CallOptions = {
        prompt: request.prompt,
        abortSignal: abort.signal,
        ...(request.tools ? { tools: request.tools } : {}),
        ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
      };
      reader = (await model.doStream(call)).stream.getReader();
      /** Index of each tool call of this answer, by its id (in the order they start). */
      const calls = new Map<string, number>();
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        const part = next.value;
        switch (part.type) {
          case "stream-start":
            break;
          case "response-metadata":
            if (part.timestamp) created = Math.floor(part.timestamp.getTime() / 1000);
            start();
            break;
          case "text-delta":
            start();
            await write(chunk({ content: part.delta }));
            break;
          case "tool-input-start": {
            start();
            const index = calls.size;
            calls.set(part.id, index);
            await write(chunk({ tool_calls: [{ index, id: part.id, type: "function", function: { name: part.toolName, arguments: "" } }] }));
            break;
          }
          case "tool-input-delta": {
            const index = calls.get(part.id);
            if (index === undefined) break;
            await write(chunk({ tool_calls: [{ index, function: { arguments: part.delta } }] }));
            break;
          }
          case "tool-call": {
            if (calls.has(part.toolCallId)) break;
            start();
            const index = calls.size;
            calls.set(part.toolCallId, index);
            await write(chunk({ tool_calls: [{ index, id: part.toolCallId, type: "function", function: { name: part.toolName, arguments: part.input } }] }));
            break;
          }
          case "finish": {
            start();
            const reason = finishReason(part.finishReason.unified);
            res.write(chunk({}, reason));
            res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.model, choices: [], usage: chatUsage(part.usage) })}\n\n`);
            done = true;
            res.end("data: [DONE]\n\n");
            if (reason === "tool_calls") counts.toolCalls++;
            else counts.stop++;
            return;
          }
          case "error":
            fail(part.error);
            return;
          default:
            // text-start/-end, reasoning (no standard field in the chat API), tool-input-end…
            break;
        }
      }
      // The model ended without a finish: end the stream as it is (the client sees no finish reason).
      start();
      done = true;
      res.end("data: [DONE]\n\n");
    } catch (error) {
      if (!isAbort(error) || !abort.signal.aborted) fail(error);
    } finally {
      done = true;
      counts.streams--;
      // Stops the model when the answer ended early; on a stream that failed, cancel repeats its error (handled above).
      if (reader) await reader.cancel().catch(() => undefined);
    }
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== "/v1/chat/completions") {
      res.writeHead(404, { "content-type": "application/json" }).end(errorBody(`no route for ${req.method ?? "?"} ${url.pathname}`, "invalid_request_error"));
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { "content-type": "application/json", allow: "POST" }).end(errorBody(`${req.method ?? "?"} is not allowed here`, "invalid_request_error"));
      return;
    }
    const body: Buffer[] = [];
    req.on("data", (b: Buffer) => body.push(b));
    req.on("end", () => {
      let request: ChatRequest;
      try {
        request = parseRequest(Buffer.concat(body).toString("utf8"));
      } catch (error) {
        if (!(error instanceof BadRequest)) throw error;
        res.writeHead(400, { "content-type": "application/json" }).end(errorBody(error.message, "invalid_request_error"));
        return;
      }
      answer(request, res).catch((error: unknown) => {
        console.error("offline provider: answer failed", error);
        res.destroy();
      });
    });
  });

  return {
    server,
    listen(port = 0) {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
          server.off("error", reject);
          const address = server.address();
          resolve(typeof address === "object" && address ? address.port : port);
        });
      });
    },
    counts: () => ({ ...counts }),
    pace(tokensPerSecond) {
      model = modelFor(tokensPerSecond);
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

function argument(name: string): number | undefined {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : undefined;
  if (value !== undefined && !Number.isFinite(value)) throw new Error(`--${name} takes a number`);
  return value;
}

/** Whether this file is the process's main module (forked or run directly), not imported. */
function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch (error) {
    if (isObject(error) && error.code === "ENOENT") return false;
    throw error;
  }
}

async function main(): Promise<void> {
  const tokensPerSecond = argument("tokens-per-second");
  const provider = createOfflineProviderServer(tokensPerSecond === undefined ? {} : { tokensPerSecond });
  const port = await provider.listen(argument("port") ?? 0);
  if (!process.send) {
    process.stdout.write(`offline provider: http://127.0.0.1:${port}/v1\n`);
    return;
  }
  process.on("message", (message: unknown) => {
    if (!isObject(message)) return;
    if (message.count) {
      process.send?.({ count: provider.counts() });
      return;
    }
    if ("tokensPerSecond" in message) {
      const n = message.tokensPerSecond;
      try {
        provider.pace(typeof n === "number" ? n : undefined);
        process.send?.({ ok: true });
      } catch (error) {
        process.send?.({ ok: false, error: error instanceof Error ? error.message : String(error) });
      }
      return;
    }
    process.send?.({ ok: false, error: `unknown message ${JSON.stringify(message)}` });
  });
  process.on("disconnect", () => process.exit(0));
  process.send({ port });
}

if (isMain()) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
