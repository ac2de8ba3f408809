import { canMove, closePart, complete, fail } from "../../lib/part-lifecycle";
import * as Id from "../id";
import { withoutNul } from "../nul";
import type { Services } from "../services";
import { type Project, ProjectMissingError, SnapshotSkippedError } from "../snapshot/snapshot";
import { classify } from "./classify";
import * as Event from "./events";
import type { LlmEvent, StreamHandle } from "./llm";
import type { AssistantMessage, MessageError, Part, PartOf, ToolPart } from "./message";
import { DEFAULT_MAX_ATTEMPTS, delay, retryable } from "./retry";
import * as Status from "./status";
import * as Store from "./store";
import { type Prices, addCost, addTokens, cost as costOf, tokens as tokensOf } from "./usage";
import { TouchedFiles } from "./touched";
import { type Durability, TurnWriter } from "./writer";
import { logger } from "../log";

const log = logger("session");

export { ABORTED_TOOL } from "../../lib/part-lifecycle";

/**
 * The processor: consumes the model's `fullStream` for one assistant turn and turns it
 * into parts, retrying provider failures, and always closing what it opened. It is made
 * before its stream exists (the tools of the step report to it), then `run` is handed
 * the function that opens the stream — again on each retry.
 */

export type Result = "continue" | "stop" | "compact";

export interface ToolOutcome {
  title: string;
  output: string;
  metadata: Record<string, unknown>;
  attachments?: { mime: string; filename?: string; url: string }[];
}

export interface Turn {
  teamId: string;
  /** Estimated input tokens of the step's request (characters / 4): its usage when the provider reports none (a stop mid-step). */
  estimateInput?: () => number;
  assistant: AssistantMessage;
  prices: Prices;
  abort: AbortSignal;
  /** True when the step's usage means the context is full. */
  overflows?: (tokens: AssistantMessage["tokens"]) => boolean;
  /** Errors from a tool that mean the user refused: they stop the loop. */
  isRejection?: (error: unknown) => boolean;
  /** The project whose files the step's tools change: snapshotted at each step's start and end. */
  project?: Project;
}

/** A running tool's live changes; `approval` null: its permission question was answered. */
type ToolPatch = { title?: string; metadata?: Record<string, unknown>; approval?: { permission: string } | null };
type RunningState = Extract<ToolPart["state"], { status: "running" }>;
type TextLike = PartOf<"text"> | PartOf<"reasoning">;

/** The error of an aborted turn: the abort's reason when it gave one (the server restarting, its database lost), else the user's stop. */
function aborted(signal: AbortSignal): MessageError {
  return { name: "AbortedError", message: typeof signal.reason === "string" && signal.reason ? signal.reason : "Aborted by the user" };
}
/** The error of a tool whose result the database refused. */
export const RESULT_NOT_STORED = "The tool's result could not be stored";

function patched(current: RunningState, patch: ToolPatch): RunningState {
  const { approval, ...state } = current;
  const waiting = patch.approval === undefined ? approval : (patch.approval ?? undefined);
  return {
    ...state,
    ...(patch.title !== undefined ? { title: patch.title } : {}),
    ...(patch.metadata !== undefined ? { metadata: { ...state.metadata, ...patch.metadata } } : {}),
    ...(waiting ? { approval: waiting } : {}),
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

/** A tool's result as a part stores it: NUL bytes (`printf 'a\0b'`) become U+FFFD (server/nul.ts). */
function outcomeOf(value: unknown): ToolOutcome {
  const v = value as Partial<ToolOutcome> | null;
  if (typeof v === "object" && v !== null && typeof v.output === "string" && typeof v.title === "string") return withoutNul(v as ToolOutcome);
  return withoutNul({ title: "", output: typeof value === "string" ? value : JSON.stringify(value), metadata: {} });
}

export class Processor {
  readonly writer: TurnWriter;
  readonly message: AssistantMessage;
  /** Parts of the current attempt still streaming, by stream id. */
  private readonly texts = new Map<string, TextLike>();
  private readonly tools = new Map<string, ToolPart>();
  /** Parts the current attempt wrote, by part id, in the order they were first written. */
  private readonly attemptParts = new Map<string, Part>();
  /** Live updates a tool sent before its part was marked running, applied when it is. */
  private readonly early = new Map<string, ToolPatch>();
  private blocked = false;
  /** A step began and has not finished (no usage reported for it yet). */
  private stepOpen = false;
  /** Characters the open step streamed (text, reasoning / tool input), for an estimate of its output if it is stopped. */
  private streamed = { output: 0, reasoning: 0 };
  private compact = false;
  /**
   * The files before the current step's first tool ran (kept across retries of the step);
   * none for a step that ran no tool, which changed no file.
   */
  private stepStart: string | undefined;
  /** That snapshot being taken (the step's tools may start together). */
  private stepSnapshot: Promise<void> | undefined;
  /** The current step's start part, to record the snapshot in once it is taken. */
  private stepPart: PartOf<"step-start"> | undefined;
  /** What the current step's tool calls changed (kept across retries of the step): its patch lists only that. */
  private readonly touched = new TouchedFiles();
  /** Why a snapshot of the current step was not taken, for its finish part. */
  private snapshotSkipped: string | undefined;
  /** This turn's snapshots: at the first step's start and at the last step's end. */
  readonly snapshots: { first?: string; last?: string } = {};

  constructor(
    private readonly services: Services,
    private readonly turn: Turn,
  ) {
    this.writer = new TurnWriter(services, turn.teamId);
    this.message = { ...turn.assistant };
  }

  private now(): number {
    return this.services.clock.now();
  }

  /** The full state of every part still streaming, for a client that just connected. */
  streamingParts(): Part[] {
    const tools = [...this.tools.values()].filter((part) => part.state.status === "pending" || part.state.status === "running");
    return [...this.texts.values(), ...tools];
  }

  async updateTool(callId: string, update: ToolPatch): Promise<void> {
    const patch = withoutNul(update);
    const part = this.tools.get(callId);
    if (!part || part.state.status === "pending") {
      // The tool may start before the stream's tool-call event is handled: keep the update.
      const earlier = this.early.get(callId);
      this.early.set(callId, {
        ...earlier,
        ...patch,
        ...(patch.metadata || earlier?.metadata ? { metadata: { ...earlier?.metadata, ...patch.metadata } } : {}),
        ...(patch.approval === undefined && earlier?.approval !== undefined ? { approval: earlier.approval } : {}),
      });
      return;
    }
    if (part.state.status !== "running") return;
    // Live progress (a subagent's calls, a title) is a streamed change: coalesced within
    // the part's window and persisted by the batcher (`batched`); the tool's end is
    // written at once (`now`) with its final metadata.
    this.save({ ...part, state: patched(part.state, patch) }, "batched", "");
  }

  /** Stream the turn (`open` starts the model call, again on each retry) until it ends. */
  async run(open: () => StreamHandle): Promise<Result> {
    await this.writer.message(this.message);
    try {
      await this.attempts(open);
    } finally {
      await this.cleanup();
    }
    if (this.message.error || this.blocked) return "stop";
    if (this.compact) return "compact";
    return "continue";
  }

  private async attempts(open: () => StreamHandle): Promise<void> {
    const max = this.services.settings.maxAttempts || DEFAULT_MAX_ATTEMPTS;
    for (let attempt = 1; ; attempt++) {
      const error = await this.attempt(open);
      if (error === undefined) return;
      const classified = this.turn.abort.aborted ? aborted(this.turn.abort) : classify(error, this.message.providerId);
      const reason = retryable(classified);
      if (reason === undefined || attempt >= max || this.turn.abort.aborted) return this.fail(classified);
      const waited = await this.waitToRetry(attempt, max, classified, reason);
      if (waited === "aborted") return this.fail(aborted(this.turn.abort));
      // "Stop retrying": the failed attempt's error is the turn's.
      if (waited === "stopped") return this.fail(classified);
    }
  }

  /**
   * Before another attempt: drop the failed one, record the retry, wait — until the timer
   * runs out, a member asks to retry now (the part's `next` becomes now) or to stop
   * retrying (the part records it), or the turn is aborted.
   */
  private async waitToRetry(attempt: number, max: number, error: MessageError, reason: string): Promise<"retry" | "stopped" | "aborted"> {
    const wait = delay(attempt, error, this.now());
    await this.discardAttempt();
    const now = this.now();
    const part: PartOf<"retry"> = {
      ...this.base(),
      type: "retry",
      attempt,
      max,
      error: error.name === "APIError" ? error : { name: "APIError", message: reason, isRetryable: true },
      time: { created: now, next: now + wait },
    };
    await this.save(part, "now");
    const sessionId = this.message.sessionId;
    await Status.set(this.services, this.turn.teamId, sessionId, { type: "retry", attempt, message: reason, next: now + wait });
    let ended;
    try {
      ended = await this.services.runners.waitToRetry(sessionId, wait, this.turn.abort);
    } catch {
      // The wait was aborted: the turn ends as aborted.
      return "aborted";
    }
    if (ended === "stop") {
      await this.save({ ...part, time: { created: now, stopped: this.now() } }, "now");
      return "stopped";
    }
    if (ended === "now") await this.save({ ...part, time: { created: now, next: this.now() } }, "now");
    await Status.set(this.services, this.turn.teamId, sessionId, { type: "busy" });
    return "retry";
  }

  private fail(error: MessageError): void {
    this.message.error = error;
    this.services.bus.publish(Event.Error, { sessionId: this.message.sessionId, error }, { teamId: this.turn.teamId, sessionId: this.message.sessionId });
  }

  /** One streamed attempt; returns the error that ended it, if any. */
  private async attempt(open: () => StreamHandle): Promise<unknown> {
    this.attemptParts.clear();
    try {
      for await (const event of open().fullStream) {
        if (this.turn.abort.aborted) return new DOMException("aborted", "AbortError");
        const error = await this.handle(event);
        if (error !== undefined) return error;
      }
      if (this.turn.abort.aborted) return new DOMException("aborted", "AbortError");
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
    for (const part of this.attemptParts.values()) {
      const finishedTool = part.type === "tool" && (part.state.status === "completed" || part.state.status === "error");
      if (!finishedTool) await this.writer.removePart(part);
    }
    this.attemptParts.clear();
    this.texts.clear();
    for (const [callId, part] of this.tools) {
      if (part.state.status === "pending" || part.state.status === "running") this.tools.delete(callId);
    }
  }

  private track(part: Part): void {
    this.attemptParts.set(part.id, part);
  }

  /**
   * Publish and persist a part change with a durability (the table in writer.ts). A whole
   * change is stored without NUL (PostgreSQL cannot hold it); a streamed one (with a
   * delta) was built from deltas already cleaned where they arrive.
   */
  private save(change: Part, durability: "now"): Promise<void>;
  private save(change: Part, durability: "next" | "batched", delta?: string): void;
  private save(change: Part, durability: Durability, delta?: string): Promise<void> | undefined {
    const part = delta === undefined ? withoutNul(change) : change;
    if (part.type === "tool") this.tools.set(part.callId, part);
    this.track(part);
    return this.writer.write(part, durability, delta);
  }

  private base() {
    return { id: Id.ascending("part"), sessionId: this.message.sessionId, messageId: this.message.id };
  }

  /** One stream event: a part created, extended, moved along or closed; or the error that ends the attempt. */
  private async handle(event: LlmEvent): Promise<unknown> {
    switch (event.type) {
      case "start-step": {
        this.stepOpen = true;
        this.streamed = { output: 0, reasoning: 0 };
        const part: PartOf<"step-start"> = { ...this.base(), type: "step-start", ...(this.stepStart ? { snapshot: this.stepStart } : {}) };
        this.stepPart = part;
        this.save(part, "batched");
        return undefined;
      }
      case "reasoning-start":
      case "text-start":
      case "reasoning-delta":
      case "text-delta":
      case "reasoning-end":
      case "text-end":
        await this.onText(event);
        return undefined;
      case "tool-input-start":
      case "tool-input-delta":
      case "tool-call":
      case "tool-result":
      case "tool-error":
        await this.onTool(event);
        return undefined;
      case "finish-step":
        await this.onFinishStep(event);
        return undefined;
      case "abort":
        return new DOMException(event.reason ?? "aborted", "AbortError");
      case "error":
        return event.error ?? new Error("the provider stream failed");
      default:
        return undefined;
    }
  }

  private async onText(event: Extract<LlmEvent, { type: `${"text" | "reasoning"}-${"start" | "delta" | "end"}` }>): Promise<void> {
    const type = event.type.startsWith("text") ? "text" : "reasoning";
    const key = `${type}:${event.id}`;
    if (event.type === "text-start" || event.type === "reasoning-start") {
      const created = { ...this.base(), type, text: "", time: { start: this.now() } } as TextLike;
      const part = withMetadata(created, event.providerMetadata);
      this.texts.set(key, part);
      return this.save(part, "batched");
    }
    const part = this.texts.get(key);
    if (!part) return;
    if (event.type === "text-delta" || event.type === "reasoning-delta") {
      // A delta can carry only metadata (e.g. a reasoning signature).
      if (event.text === "") {
        if (event.providerMetadata) this.texts.set(key, withMetadata(part, withoutNul(event.providerMetadata)));
        return;
      }
      const delta = withoutNul(event.text);
      if (type === "reasoning") this.streamed.reasoning += delta.length;
      else this.streamed.output += delta.length;
      const next = withMetadata({ ...part, text: part.text + delta }, withoutNul(event.providerMetadata));
      this.texts.set(key, next);
      return this.save(next, "batched", delta);
    }
    this.texts.delete(key);
    const text = type === "text" ? part.text.trimEnd() : part.text;
    await this.save(withMetadata({ ...part, text, time: { start: part.time?.start ?? this.now(), end: this.now() } }, event.providerMetadata), "now");
  }

  private toolFor(callId: string, toolName: string): ToolPart {
    return this.tools.get(callId) ?? { ...this.base(), type: "tool", callId, tool: toolName, state: { status: "pending", input: {}, raw: "" } };
  }

  /** A tool part through its states; a move the state machine does not allow is ignored. */
  private async onTool(event: Extract<LlmEvent, { type: "tool-input-start" | "tool-input-delta" | "tool-call" | "tool-result" | "tool-error" }>): Promise<void> {
    switch (event.type) {
      case "tool-input-start":
        return this.save(this.toolFor(event.id, event.toolName), "batched");
      case "tool-input-delta": {
        const part = this.tools.get(event.id);
        if (part?.state.status !== "pending") return;
        this.streamed.output += event.delta.length;
        const next: ToolPart = { ...part, state: { ...part.state, raw: part.state.raw + withoutNul(event.delta) } };
        // Persisted with the turn's next write (`next`): at the latest the call's start.
        return this.save(next, "next", "");
      }
      case "tool-call": {
        const part = this.toolFor(event.toolCallId, event.toolName);
        if (!canMove(part.state.status, "running")) return;
        const early = this.early.get(event.toolCallId);
        this.early.delete(event.toolCallId);
        const running: RunningState = { status: "running", input: asRecord(event.input), time: { start: this.now() } };
        this.touched.note(part.tool, running.input);
        // Not a statement of its own (`batched`): the tool's end is written at once, and a
        // crash before either leaves a pending part that recovery closes as it would a
        // running one.
        return this.save(withMetadata<ToolPart>({ ...part, state: early ? patched(running, early) : running }, event.providerMetadata), "batched");
      }
      case "tool-result":
        return this.completeTool(event.toolCallId, outcomeOf(event.output));
      case "tool-error":
        return this.failTool(event.toolCallId, event.toolName, event.error);
    }
  }

  private async completeTool(callId: string, result: ToolOutcome): Promise<void> {
    const part = this.tools.get(callId);
    if (!part) return;
    const attachments = result.attachments?.map((a) => ({ ...this.base(), type: "file" as const, mime: a.mime, url: a.url, ...(a.filename ? { filename: a.filename } : {}) }));
    const end = this.now();
    const completed = complete(part, { output: result.output, title: result.title, metadata: result.metadata, ...(attachments ? { attachments } : {}) }, end);
    if (!completed) return;
    try {
      await this.save(completed, "now");
    } catch (error) {
      // The result could not be stored: the tool ends as an error saying so, and the turn
      // goes on (a tool part left "running" would stay so forever). When even that write
      // fails, the database is what is wrong and the turn fails with it.
      log.error(`the result of tool call ${callId} could not be stored: ${errorText(error)}`);
      const failed = fail(part, `${RESULT_NOT_STORED}: ${errorText(error)}`, end);
      if (failed) await this.save(failed, "now");
    }
  }

  private async failTool(callId: string, toolName: string, error: unknown): Promise<void> {
    const failed = fail(this.toolFor(callId, toolName), errorText(error), this.now());
    if (!failed) return;
    await this.save(failed, "now");
    if (this.turn.isRejection?.(error)) this.blocked = true;
  }

  private async onFinishStep(event: Extract<LlmEvent, { type: "finish-step" }>): Promise<void> {
    this.stepOpen = false;
    const step = tokensOf(event.usage);
    const stepCost = costOf(step, this.turn.prices);
    this.message.tokens = addTokens(this.message.tokens, step);
    this.message.cost = addCost(this.message.cost, stepCost);
    this.message.finish = event.finishReason;
    const end = await this.endStep();
    const skipped = this.snapshotSkipped;
    this.snapshotSkipped = undefined;
    await this.save({
      ...this.base(),
      type: "step-finish",
      reason: event.finishReason,
      ...(end ? { snapshot: end.hash } : {}),
      ...(skipped ? { snapshotSkipped: skipped } : {}),
      cost: stepCost,
      tokens: step,
    }, "now");
    if (end?.patch) await this.save(end.patch, "now");
    // The step is complete and counted: nothing of it is discarded by a later retry. Its
    // message (tokens, cost, finish) is written once, as the turn closes right after this
    // event (the step's last: its tools ran before it), not here and again there.
    this.attemptParts.clear();
    await Store.addUsage(this.services, this.message.sessionId, step, stepCost);
    // An answer cut at the model's output limit ends the turn with that error (the text so far is kept).
    if (event.finishReason === "length") return this.fail({ name: "OutputLengthError", message: "The model reached its maximum output length: the answer is cut short." });
    if (this.turn.overflows?.(step)) this.compact = true;
  }

  /**
   * Called before each tool of the step runs (toolset.ts): the first takes the step's
   * snapshot, which the others wait for (the step's tools start together). Taken here,
   * not when the step's stream starts: a step that runs no tool (most answers) changes no
   * file and needs none.
   */
  beforeTool(): Promise<void> {
    this.stepSnapshot ??= this.takeStepSnapshot();
    return this.stepSnapshot;
  }

  private async takeStepSnapshot(): Promise<void> {
    if (this.stepStart !== undefined) return;
    this.stepStart = await this.snapshot();
    this.snapshots.first ??= this.stepStart;
    // The step's start part records where its files were (summaries and the turn's diff read it).
    if (this.stepStart && this.stepPart && !this.stepPart.snapshot) {
      this.stepPart = { ...this.stepPart, snapshot: this.stepStart };
      await this.save(this.stepPart, "now");
    }
  }

  /**
   * The project as it is now, or undefined without snapshots (a failure is logged: the
   * turn goes on). None is taken of a project over its disk quota, nor one that would
   * store too much at once: the step's finish part says why (`snapshotSkipped`).
   */
  private async snapshot(): Promise<string | undefined> {
    const { project } = this.turn;
    if (!project || !this.services.snapshots.available) return undefined;
    let used: number | undefined;
    try {
      used = await this.services.quota.over(project.directory);
    } catch (error) {
      // Not measured (du failed): the snapshot is taken as if the project were within its quota.
      log.error(`the disk usage of project ${project.id} could not be measured: ${errorText(error)}`);
    }
    if (used !== undefined) {
      this.snapshotSkipped = `not snapshotted: the project is over its disk quota (${(used / 1048576).toFixed(1)} MB used of ${(this.services.quota.limitBytes / 1048576).toFixed(0)} MB, limits.projectDiskMb)`;
      return undefined;
    }
    try {
      return await this.services.snapshots.track(project);
    } catch (error) {
      if (error instanceof SnapshotSkippedError) {
        this.snapshotSkipped = error.message;
        return undefined;
      }
      // A project whose directory is gone has nothing to snapshot (its tools say so themselves).
      if (!(error instanceof ProjectMissingError)) log.error(`snapshot of project ${project.id} failed: ${errorText(error)}`);
      return undefined;
    }
  }

  /**
   * A step's end: a snapshot, and the patch part of the files the step's tools changed
   * (none when nothing changed; see touched.ts for tools whose effect is unknown).
   */
  private async endStep(): Promise<{ hash: string; patch?: PartOf<"patch"> } | undefined> {
    const start = this.stepStart;
    this.stepStart = undefined;
    const touched = this.touched.take();
    const { project } = this.turn;
    if (!start || !project) return undefined;
    this.stepSnapshot = undefined;
    this.stepPart = undefined;
    const hash = await this.snapshot();
    if (!hash) return undefined;
    this.snapshots.last = hash;
    let files: string[] = [];
    try {
      // Only what this step's own tools changed: a file another session wrote meanwhile is not its change.
      if (hash !== start) files = await touched.filter(project.directory, await this.services.snapshots.changed(project, start, hash));
    } catch (error) {
      log.error(`the changes of a step in project ${project.id} could not be listed: ${errorText(error)}`);
    }
    return files.length ? { hash, patch: { ...this.base(), type: "patch", hash: start, files } } : { hash };
  }

  /**
   * A step stopped before the provider reported its usage (an abort mid-stream): its
   * tokens are estimated — the request's characters / 4 as input, what it streamed / 4 as
   * output and reasoning — priced like reported ones, added to the message and the session,
   * and marked as an estimate (the step-finish part's `estimated`, the message's
   * `usageEstimated`). A stop is not free: the provider bills what it had read and written.
   */
  private async recordStoppedStep(): Promise<void> {
    this.stepOpen = false;
    const step = {
      input: Math.max(0, Math.round(this.turn.estimateInput?.() ?? 0)),
      output: Math.ceil(this.streamed.output / 4),
      reasoning: Math.ceil(this.streamed.reasoning / 4),
      cache: { read: 0, write: 0 },
    };
    const stepCost = costOf(step, this.turn.prices);
    this.message.tokens = addTokens(this.message.tokens, step);
    this.message.cost = addCost(this.message.cost, stepCost);
    this.message.usageEstimated = true;
    await this.save({ ...this.base(), type: "step-finish", reason: "aborted", estimated: true, cost: stepCost, tokens: step }, "now");
    await Store.addUsage(this.services, this.message.sessionId, step, stepCost);
  }

  /** Close whatever is still open: streaming text ends, tools that did not finish become "aborted" errors. */
  private async cleanup(): Promise<void> {
    if (this.stepOpen && this.message.error?.name === "AbortedError") await this.recordStoppedStep();
    // A step that did not finish (aborted, failed) may still have changed files: keep its patch.
    if (this.stepStart) {
      const end = await this.endStep();
      if (end?.patch) await this.save(end.patch, "now");
    }
    const end = this.now();
    for (const part of this.texts.values()) {
      const closed = closePart(part.type === "text" ? { ...part, text: part.text.trimEnd() } : part, end);
      if (closed) await this.save(closed, "now");
    }
    this.texts.clear();
    for (const part of this.tools.values()) {
      const closed = closePart(part, end);
      if (closed) await this.save(closed, "now");
    }
    this.message.time = { ...this.message.time, completed: end };
    await this.writer.flush();
    await this.writer.message(this.message);
  }
}
