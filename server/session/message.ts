import { z } from "zod";
import * as Id from "../id";

/**
 * Messages and their parts. A message is metadata; its content is the ordered
 * list of parts, each stored in its own row so one part can change while streaming.
 * Every type here is `z.infer` of its schema: this file is the one source of truth.
 */

// ---------------------------------------------------------------- stored errors

export const AbortedError = z.object({ name: z.literal("AbortedError"), message: z.string() });
export const AuthError = z.object({ name: z.literal("AuthError"), providerId: z.string(), message: z.string() });
export const APIError = z.object({
  name: z.literal("APIError"),
  message: z.string(),
  statusCode: z.number().int().optional(),
  isRetryable: z.boolean(),
  responseHeaders: z.record(z.string(), z.string()).optional(),
  responseBody: z.string().optional(),
});
export const OutputLengthError = z.object({ name: z.literal("OutputLengthError"), message: z.string().optional() });
export const ContextOverflowError = z.object({
  name: z.literal("ContextOverflowError"),
  message: z.string(),
  responseBody: z.string().optional(),
});
export const UnknownError = z.object({ name: z.literal("UnknownError"), message: z.string() });

export const MessageError = z.discriminatedUnion("name", [
  AbortedError,
  AuthError,
  APIError,
  OutputLengthError,
  ContextOverflowError,
  UnknownError,
]);
export type MessageError = z.infer<typeof MessageError>;
export type APIError = z.infer<typeof APIError>;

// ---------------------------------------------------------------- shared pieces

export const Tokens = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  reasoning: z.number().nonnegative(),
  cache: z.object({ read: z.number().nonnegative(), write: z.number().nonnegative() }),
});
export type Tokens = z.infer<typeof Tokens>;
export const emptyTokens = (): Tokens => ({ input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } });

export const ModelRef = z.object({ providerId: z.string().min(1), modelId: z.string().min(1) });
export type ModelRef = z.infer<typeof ModelRef>;

export const FileDiff = z.object({
  file: z.string(),
  before: z.string().optional(),
  after: z.string().optional(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
});
export type FileDiff = z.infer<typeof FileDiff>;

/**
 * One source of instructions a turn's system prompt held (SPEC §17): the team's or the
 * project's (stored by admins), a rule or instruction file of the workspace (its path
 * relative to the workspace), or an address of the server configuration. Names and sizes
 * only: the text is read again when a member opens it (`sha256` tells whether it changed).
 */
export const InstructionSource = z.object({
  kind: z.enum(["team", "project", "file", "url", "server"]),
  /** "team", "project", a path such as "AGENTS.md" or "docs/rules.md", a URL, or "tool server <name>" (a tool server's instructions). */
  label: z.string().min(1),
  /** Bytes of its text the prompt held. */
  bytes: z.number().int().nonnegative().optional(),
  /** SHA-256 (hex) of the text the prompt held. */
  sha256: z.string().optional(),
  /** The text was cut at a size limit. */
  cut: z.boolean().optional(),
  /** Why it was left out (refused, too large, unreachable). */
  skipped: z.string().optional(),
});
export type InstructionSource = z.infer<typeof InstructionSource>;

const Metadata = z.record(z.string(), z.unknown());
const JsonInput = z.record(z.string(), z.unknown());

// ---------------------------------------------------------------- parts

const PartBase = z.object({
  id: Id.schema("part"),
  sessionId: Id.schema("session"),
  messageId: Id.schema("message"),
});

export const TextPart = PartBase.extend({
  type: z.literal("text"),
  text: z.string(),
  synthetic: z.boolean().optional(),
  ignored: z.boolean().optional(),
  time: z.object({ start: z.number(), end: z.number().optional() }).optional(),
  metadata: Metadata.optional(),
});

export const ReasoningPart = PartBase.extend({
  type: z.literal("reasoning"),
  text: z.string(),
  time: z.object({ start: z.number(), end: z.number().optional() }),
  metadata: Metadata.optional(),
});

export const FilePartSource = z.object({
  type: z.enum(["file", "symbol"]),
  path: z.string(),
  text: z.object({ value: z.string(), start: z.number().int(), end: z.number().int() }).optional(),
});

export const FilePart = PartBase.extend({
  type: z.literal("file"),
  mime: z.string().min(1),
  filename: z.string().optional(),
  url: z.string(),
  source: FilePartSource.optional(),
});

export const ToolStatePending = z.object({
  status: z.literal("pending"),
  input: JsonInput,
  raw: z.string(),
});
export const ToolStateRunning = z.object({
  status: z.literal("running"),
  input: JsonInput,
  title: z.string().optional(),
  metadata: Metadata.optional(),
  time: z.object({ start: z.number() }),
  /** Set while the call waits for a person to answer its permission question (which permission it asks). */
  approval: z.object({ permission: z.string() }).optional(),
});
export const ToolStateCompleted = z.object({
  status: z.literal("completed"),
  input: JsonInput,
  output: z.string(),
  title: z.string(),
  metadata: Metadata,
  time: z.object({ start: z.number(), end: z.number(), compacted: z.number().optional() }),
  attachments: z.array(z.lazy(() => FilePart)).optional(),
});
export const ToolStateError = z.object({
  status: z.literal("error"),
  input: JsonInput,
  error: z.string(),
  metadata: Metadata.optional(),
  time: z.object({ start: z.number(), end: z.number() }),
});
export const ToolState = z.discriminatedUnion("status", [
  ToolStatePending,
  ToolStateRunning,
  ToolStateCompleted,
  ToolStateError,
]);
export type ToolState = z.infer<typeof ToolState>;

export const ToolPart = PartBase.extend({
  type: z.literal("tool"),
  callId: z.string().min(1),
  tool: z.string().min(1),
  state: ToolState,
  metadata: Metadata.optional(),
});

export const StepStartPart = PartBase.extend({
  type: z.literal("step-start"),
  snapshot: z.string().optional(),
});

export const StepFinishPart = PartBase.extend({
  type: z.literal("step-finish"),
  reason: z.string(),
  snapshot: z.string().optional(),
  /** Why the step has no snapshot (its project over its disk quota, too much new to store): no patch, no revert of it. */
  snapshotSkipped: z.string().optional(),
  cost: z.number().nonnegative(),
  tokens: Tokens,
  /**
   * The provider reported no usage for this step (a reply stopped mid-step): `tokens` are
   * Parley's estimate (characters / 4 of the request and of what was streamed), `reason`
   * is "aborted".
   */
  estimated: z.boolean().optional(),
});

export const SnapshotPart = PartBase.extend({ type: z.literal("snapshot"), snapshot: z.string() });

export const PatchPart = PartBase.extend({
  type: z.literal("patch"),
  hash: z.string(),
  files: z.array(z.string()),
});

export const AgentPart = PartBase.extend({ type: z.literal("agent"), name: z.string().min(1) });

export const SubtaskPart = PartBase.extend({
  type: z.literal("subtask"),
  prompt: z.string(),
  description: z.string(),
  agent: z.string().min(1),
  model: ModelRef.optional(),
});

export const RetryPart = PartBase.extend({
  type: z.literal("retry"),
  /** The attempt that failed. */
  attempt: z.number().int().positive(),
  /** How many attempts the call may make in all (absent on parts stored before it was kept). */
  max: z.number().int().positive().optional(),
  error: APIError,
  /**
   * created: when the attempt failed; next: when the next attempt starts (now, when a member
   * asked to retry at once); stopped: when a member stopped retrying instead (no next attempt).
   */
  time: z.object({ created: z.number(), next: z.number().optional(), stopped: z.number().optional() }),
});

export const CompactionPart = PartBase.extend({
  type: z.literal("compaction"),
  auto: z.boolean(),
  overflow: z.boolean().optional(),
});

export const Part = z.discriminatedUnion("type", [
  TextPart,
  ReasoningPart,
  FilePart,
  ToolPart,
  StepStartPart,
  StepFinishPart,
  SnapshotPart,
  PatchPart,
  AgentPart,
  SubtaskPart,
  RetryPart,
  CompactionPart,
]);
export type Part = z.infer<typeof Part>;
export type PartType = Part["type"];
export type PartOf<T extends PartType> = Extract<Part, { type: T }>;
export type TextPart = z.infer<typeof TextPart>;
export type ToolPart = z.infer<typeof ToolPart>;
export type FilePart = z.infer<typeof FilePart>;

/** Every part type, read from the schema (a new type is listed by adding it to `Part`). */
export const PART_TYPES: readonly PartType[] = Part.options.map((option) => option.shape.type.value);

// ---------------------------------------------------------------- messages

const MessageBase = z.object({
  id: Id.schema("message"),
  sessionId: Id.schema("session"),
});

/**
 * Who wrote a user message. Stored as the message row's `authorId` column (never in its
 * JSON) and read with the user's name; a message stored before authors were recorded
 * reads as written by its session's author.
 */
export const Author = z.object({ id: z.string().min(1), name: z.string() });
export type Author = z.infer<typeof Author>;

export const UserMessage = MessageBase.extend({
  role: z.literal("user"),
  time: z.object({ created: z.number() }),
  author: Author.optional(),
  /**
   * A message the agent of the parent session wrote (a task's prompt to its subagent, in
   * the child session): which session and agent. Absent: a person wrote it. Set only by
   * the server (subagent.ts), never from a member's input.
   */
  delegatedBy: z.object({ sessionId: Id.schema("session"), agent: z.string().min(1) }).optional(),
  agent: z.string().min(1),
  model: ModelRef,
  system: z.string().optional(),
  tools: z.record(z.string(), z.boolean()).optional(),
  summary: z
    .object({ title: z.string().optional(), body: z.string().optional(), diffs: z.array(FileDiff) })
    .optional(),
});

export const AssistantMessage = MessageBase.extend({
  role: z.literal("assistant"),
  parentId: Id.schema("message"),
  providerId: z.string().min(1),
  modelId: z.string().min(1),
  agent: z.string().min(1),
  path: z.object({ cwd: z.string(), root: z.string() }),
  summary: z.boolean().optional(),
  cost: z.number().nonnegative(),
  tokens: Tokens,
  /** Part of `tokens` and `cost` is an estimate: a step was stopped before the provider reported its usage. */
  usageEstimated: z.boolean().optional(),
  finish: z.string().optional(),
  error: MessageError.optional(),
  /** The instructions its system prompt held, in order (absent: none, or stored before they were recorded). */
  instructions: z.array(InstructionSource).optional(),
  /** Said when the tools of the team's tool servers took a large share of the model's context in its request (server/mcp). */
  toolWarning: z.string().max(1000).optional(),
  time: z.object({ created: z.number(), completed: z.number().optional() }),
});

export const Message = z.discriminatedUnion("role", [UserMessage, AssistantMessage]);
export type UserMessage = z.infer<typeof UserMessage>;
export type AssistantMessage = z.infer<typeof AssistantMessage>;
export type Message = z.infer<typeof Message>;

export const WithParts = z.object({ info: Message, parts: z.array(Part) });
export type WithParts = z.infer<typeof WithParts>;

/** A new, empty reply to a user message, started at `now`, by `agent`, working in `directory`. */
export function newAssistant(user: UserMessage, input: { agent: string; directory: string; now: number }): AssistantMessage {
  return {
    id: Id.ascending("message"),
    sessionId: user.sessionId,
    role: "assistant",
    parentId: user.id,
    providerId: user.model.providerId,
    modelId: user.model.modelId,
    agent: input.agent,
    path: { cwd: input.directory, root: input.directory },
    cost: 0,
    tokens: emptyTokens(),
    time: { created: input.now },
  };
}
