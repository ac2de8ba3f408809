import type { TextStreamPart, ToolSet } from "ai";
import * as Id from "../id";
import type { Db } from "../db/client";
import type { Bus } from "../bus/bus";
import { classify } from "./classify";
import * as Event from "./events";
import type { AssistantMessage, MessageError, Part, PartOf, ToolPart } from "./message";
import { DEFAULT_MAX_ATTEMPTS, delay, retryable, sleep } from "./retry";
import * as Status from "./status";
import { type Prices, addCost, addTokens, cost as costOf, tokens as tokensOf } from "./usage";
import { sessionFromRow } from "./rows";
import { TurnWriter } from "./writer";

/**
 * The processor (SPEC §6): consumes the AI SDK `fullStream` of one assistant turn and
 * turns it into parts, retrying provider failures, and always closing what it opened.
 */

export type Result = "continue" | "stop" | "compact";

export interface StreamHandle {
  fullStream: AsyncIterable<TextStreamPart<ToolSet>>;
}

export interface ToolOutcome {
  title: string;
  output: string;
  metadata: Record<string, unknown>;
  attachments?: { mime: string; filename?: string; url: string }[];
}

export interface ProcessorOptions {
  db: Db;
  bus: Bus;
  teamId: string;
  assistant: AssistantMessage;
  prices: Prices;
  abort: AbortSignal;
  /** Start (or restart, on retry) the model stream. */
  stream: () => StreamHandle;
  maxAttempts?: number;
  /** True when the step's usage means the context is full (SPEC §8). */
  overflows?: (tokens: AssistantMessage["tokens"]) => boolean;
  /** Errors from a tool that mean the user refused: they stop the loop. */
  isRejection?: (error: unknown) => boolean;
  now?: () => number;
  flushMs?: number;
}

export const ABORTED_TOOL = "Tool execution aborted";

type ToolPatch = { title?: string; metadata?: Record<string, unknown> };
type RunningState = Extract<ToolPart["state"], { status: "running" }>;

function patched(state: RunningState, patch: ToolPatch): RunningState {
  return {
    ...state,
    ...(patch.title !== undefined ? { title: patch.title } : {}),
    ...(patch.metadata !== undefined ? { metadata: { ...state.metadata, ...patch.metadata } } : {}),
  };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  return JSON.stringify(error);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}

/**
 * Provider metadata of a streamed part (e.g. a reasoning signature or an item id), merged
 * per provider as start/delta/end events add to it. Stored as the part's `metadata` and
 * sent back with the part (toModelMessages), as providers require for reasoning.
 */
function withMetadata<P extends { metadata?: Record<string, unknown> }>(part: P, metadata: Record<string, unknown> | undefined): P {
  if (!metadata || Object.keys(metadata).length === 0) return part;
  const merged: Record<string, unknown> = { ...part.metadata };
  for (const [provider, value] of Object.entries(metadata)) {
    const before = merged[provider];
    merged[provider] =
      typeof before === "object" && before !== null && typeof value === "object" && value !== null ? { ...before, ...value } : value;
  }
  return { ...part, metadata: merged };
}

function isOutcome(value: unknown): value is ToolOutcome {
  const v = value as Partial<ToolOutcome> | null;
  return typeof v === "object" && v !== null && typeof v.output === "string" && typeof v.title === "string";
}

export class Processor {
  readonly writer: TurnWriter;
  readonly message: AssistantMessage;
  private readonly now: () => number;
  /** Parts of the current attempt still streaming, by stream id. */
  private readonly texts = new Map<string, PartOf<"text"> | PartOf<"reasoning">>();
  private readonly tools = new Map<string, ToolPart>();
  private readonly attemptParts: Part[] = [];
  private blocked = false;
  private compact = false;

  constructor(private readonly options: ProcessorOptions) {
    this.writer = new TurnWriter(options.db, options.bus, options.teamId, options.flushMs);
    this.message = { ...options.assistant };
    this.now = options.now ?? Date.now;
  }

  /** Republish the full state of every part still streaming (no delta), for clients that just connected. */
  resync(): void {
    const scope = { teamId: this.options.teamId, sessionId: this.message.sessionId };
    for (const part of this.texts.values()) this.options.bus.publish(Event.PartUpdated, { part }, scope);
    for (const part of this.tools.values()) {
      if (part.state.status === "pending" || part.state.status === "running") this.options.bus.publish(Event.PartUpdated, { part }, scope);
    }
  }

  /** The tool part of a call, for live updates from the running tool. */
  toolPart(callId: string): ToolPart | undefined {
    return this.tools.get(callId);
  }

  /** Live updates a tool sent before its part was marked running, applied when it is. */
  private readonly early = new Map<string, ToolPatch>();

  async updateTool(callId: string, patch: ToolPatch): Promise<void> {
    const part = this.tools.get(callId);
    if (!part || part.state.status === "pending") {
      // The tool may start before the stream's tool-call event is handled: keep the update.
      const earlier = this.early.get(callId);
      this.early.set(callId, {
        ...earlier,
        ...patch,
        ...(patch.metadata || earlier?.metadata ? { metadata: { ...earlier?.metadata, ...patch.metadata } } : {}),
      });
      return;
    }
    if (part.state.status !== "running") return;
    await this.savePart({ ...part, state: patched(part.state, patch) });
  }

  async run(): Promise<Result> {
    const max = this.options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    try {
      for (let attempt = 1; ; attempt++) {
        const error = await this.attempt();
        if (error === undefined) break;
        const classified = this.options.abort.aborted
          ? ({ name: "AbortedError", message: "Aborted by the user" } as const)
          : classify(error, this.message.providerId);
        const reason = retryable(classified);
        if (reason !== undefined && attempt < max && !this.options.abort.aborted) {
          const wait = delay(attempt, classified, this.now());
          await this.discardAttempt();
          await this.savePart({
            id: Id.ascending("part"),
            sessionId: this.message.sessionId,
            messageId: this.message.id,
            type: "retry",
            attempt,
            error: classified.name === "APIError" ? classified : { name: "APIError", message: reason, isRetryable: true },
            time: { created: this.now() },
          });
          await Status.set(this.options, this.message.sessionId, {
            type: "retry",
            attempt,
            message: reason,
            next: this.now() + wait,
          });
          try {
            await sleep(wait, this.options.abort);
          } catch {
            this.fail({ name: "AbortedError", message: "Aborted by the user" });
            break;
          }
          await Status.set(this.options, this.message.sessionId, { type: "busy" });
          continue;
        }
        this.fail(classified);
        break;
      }
    } finally {
      await this.cleanup();
    }
    if (this.message.error || this.blocked) return "stop";
    if (this.compact) return "compact";
    return "continue";
  }

  private fail(error: MessageError): void {
    this.message.error = error;
    this.options.bus.publish(Event.Error, { sessionId: this.message.sessionId, error }, {
      teamId: this.options.teamId,
      sessionId: this.message.sessionId,
    });
  }

  /** One streamed attempt; returns the error that ended it, if any. */
  private async attempt(): Promise<unknown> {
    this.attemptParts.length = 0;
    try {
      const handle = this.options.stream();
      for await (const event of handle.fullStream) {
        if (this.options.abort.aborted) return new DOMException("aborted", "AbortError");
        const error = await this.handle(event);
        if (error !== undefined) return error;
      }
      if (this.options.abort.aborted) return new DOMException("aborted", "AbortError");
      return undefined;
    } catch (error) {
      return error ?? new Error("the model stream failed");
    }
  }

  /**
   * Remove what a failed attempt wrote before it is retried: the retry streams the whole
   * step again, so its step-start, text and reasoning (finished or not) and unfinished
   * tools would otherwise appear twice. Tools that finished are kept: they ran, and their
   * effects are real.
   */
  private async discardAttempt(): Promise<void> {
    for (const part of this.attemptParts) {
      const finishedTool = part.type === "tool" && (part.state.status === "completed" || part.state.status === "error");
      if (!finishedTool) await this.writer.removePart(part);
    }
    this.attemptParts.length = 0;
    this.texts.clear();
    for (const [callId, part] of this.tools) {
      if (part.state.status === "pending" || part.state.status === "running") this.tools.delete(callId);
    }
  }

  private track(part: Part): void {
    const index = this.attemptParts.findIndex((p) => p.id === part.id);
    if (index === -1) this.attemptParts.push(part);
    else this.attemptParts[index] = part;
  }

  private async savePart(part: Part, delta?: string): Promise<void> {
    if (part.type === "tool") this.tools.set(part.callId, part);
    this.track(part);
    await this.writer.part(part, delta);
  }

  private base() {
    return { id: Id.ascending("part"), sessionId: this.message.sessionId, messageId: this.message.id };
  }

  private toolFor(callId: string, toolName: string): ToolPart {
    return (
      this.tools.get(callId) ?? {
        ...this.base(),
        type: "tool",
        callId,
        tool: toolName,
        state: { status: "pending", input: {}, raw: "" },
      }
    );
  }

  private async handle(event: TextStreamPart<ToolSet>): Promise<unknown> {
    switch (event.type) {
      case "start":
        return undefined;
      case "start-step":
        await this.savePart({ ...this.base(), type: "step-start" });
        return undefined;
      case "reasoning-start":
      case "text-start": {
        const type = event.type === "text-start" ? "text" : "reasoning";
        const created = { ...this.base(), type, text: "", time: { start: this.now() } } as PartOf<"text"> | PartOf<"reasoning">;
        const part = withMetadata(created, event.providerMetadata);
        this.texts.set(`${type}:${event.id}`, part);
        await this.savePart(part);
        return undefined;
      }
      case "reasoning-delta":
      case "text-delta": {
        const key = `${event.type === "text-delta" ? "text" : "reasoning"}:${event.id}`;
        const part = this.texts.get(key);
        if (!part) return undefined;
        if (event.text === "") {
          // A delta can carry only metadata (e.g. a reasoning signature).
          if (event.providerMetadata) this.texts.set(key, withMetadata(part, event.providerMetadata));
          return undefined;
        }
        const next = withMetadata({ ...part, text: part.text + event.text }, event.providerMetadata);
        this.texts.set(key, next);
        await this.savePart(next, event.text);
        return undefined;
      }
      case "reasoning-end":
      case "text-end": {
        const key = `${event.type === "text-end" ? "text" : "reasoning"}:${event.id}`;
        const part = this.texts.get(key);
        if (!part) return undefined;
        this.texts.delete(key);
        const text = event.type === "text-end" ? part.text.trimEnd() : part.text;
        await this.savePart(withMetadata({ ...part, text, time: { start: part.time?.start ?? this.now(), end: this.now() } }, event.providerMetadata));
        return undefined;
      }
      case "tool-input-start": {
        await this.savePart(this.toolFor(event.id, event.toolName));
        return undefined;
      }
      case "tool-input-delta": {
        const part = this.tools.get(event.id);
        if (!part || part.state.status !== "pending") return undefined;
        const next: ToolPart = { ...part, state: { ...part.state, raw: part.state.raw + event.delta } };
        this.tools.set(event.id, next);
        await this.savePart(next, "");
        return undefined;
      }
      case "tool-input-end":
        return undefined;
      case "tool-call": {
        const part = this.toolFor(event.toolCallId, event.toolName);
        if (part.state.status !== "pending") return undefined;
        const early = this.early.get(event.toolCallId);
        this.early.delete(event.toolCallId);
        const running: RunningState = { status: "running", input: asRecord(event.input), time: { start: this.now() } };
        await this.savePart(
          withMetadata<ToolPart>({ ...part, state: early ? patched(running, early) : running }, event.providerMetadata),
        );
        return undefined;
      }
      case "tool-result": {
        const part = this.tools.get(event.toolCallId);
        if (!part || part.state.status !== "running") return undefined;
        const result: ToolOutcome = isOutcome(event.output)
          ? event.output
          : { title: "", output: typeof event.output === "string" ? event.output : JSON.stringify(event.output), metadata: {} };
        await this.savePart({
          ...part,
          state: {
            status: "completed",
            input: part.state.input,
            output: result.output,
            title: result.title,
            metadata: { ...part.state.metadata, ...result.metadata },
            time: { start: part.state.time.start, end: this.now() },
            ...(result.attachments?.length
              ? {
                  attachments: result.attachments.map((a) => ({
                    ...this.base(),
                    type: "file" as const,
                    mime: a.mime,
                    url: a.url,
                    ...(a.filename ? { filename: a.filename } : {}),
                  })),
                }
              : {}),
          },
        });
        return undefined;
      }
      case "tool-error": {
        const part = this.tools.get(event.toolCallId) ?? this.toolFor(event.toolCallId, event.toolName);
        if (part.state.status === "completed" || part.state.status === "error") return undefined;
        const start = part.state.status === "running" ? part.state.time.start : this.now();
        await this.savePart({
          ...part,
          state: {
            status: "error",
            input: part.state.input,
            error: errorText(event.error),
            ...(part.state.status === "running" && part.state.metadata ? { metadata: part.state.metadata } : {}),
            time: { start, end: this.now() },
          },
        });
        if (this.options.isRejection?.(event.error)) this.blocked = true;
        return undefined;
      }
      case "finish-step": {
        const step = tokensOf(event.usage);
        const stepCost = costOf(step, this.options.prices);
        this.message.tokens = addTokens(this.message.tokens, step);
        this.message.cost = addCost(this.message.cost, stepCost);
        this.message.finish = event.finishReason;
        await this.savePart({ ...this.base(), type: "step-finish", reason: event.finishReason, cost: stepCost, tokens: step });
        // The step is complete and counted: nothing of it is discarded by a later retry.
        this.attemptParts.length = 0;
        await this.writer.message(this.message);
        await this.addToSession(step, stepCost);
        if (this.options.overflows?.(step)) this.compact = true;
        return undefined;
      }
      case "abort":
        return new DOMException(event.reason ?? "aborted", "AbortError");
      case "error":
        return event.error ?? new Error("the provider stream failed");
      default:
        return undefined;
    }
  }

  private async addToSession(step: AssistantMessage["tokens"], stepCost: number): Promise<void> {
    const row = await this.options.db.session.update({
      where: { id: this.message.sessionId },
      data: {
        cost: { increment: stepCost },
        tokensInput: { increment: step.input },
        tokensOutput: { increment: step.output },
        tokensReasoning: { increment: step.reasoning },
        tokensCacheRead: { increment: step.cache.read },
        tokensCacheWrite: { increment: step.cache.write },
        tokensTotal: { increment: step.input + step.output + step.reasoning + step.cache.read + step.cache.write },
        timeUpdated: new Date(this.now()),
      },
      include: { share: true },
    });
    const info = sessionFromRow(row);
    this.options.bus.publish(Event.Updated, { info }, { teamId: this.options.teamId, sessionId: info.id });
  }

  /** Close whatever is still open; tools that did not finish become "aborted" errors. */
  private async cleanup(): Promise<void> {
    const end = this.now();
    for (const part of this.texts.values()) {
      const text = part.type === "text" ? part.text.trimEnd() : part.text;
      await this.savePart({ ...part, text, time: { start: part.time?.start ?? end, end } });
    }
    this.texts.clear();
    for (const part of this.tools.values()) {
      if (part.state.status === "pending" || part.state.status === "running") {
        const running = part.state.status === "running" ? part.state : undefined;
        await this.savePart({
          ...part,
          state: {
            status: "error",
            input: part.state.input,
            error: ABORTED_TOOL,
            // Keep what a running tool reported (e.g. a command's output so far).
            ...(running?.metadata ? { metadata: running.metadata } : {}),
            time: { start: running?.time.start ?? end, end },
          },
        });
      }
    }
    this.message.time = { ...this.message.time, completed: end };
    await this.writer.flush();
    await this.writer.message(this.message);
  }
}
