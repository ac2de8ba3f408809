import type { Part, ToolPart } from "../server/session/message";

/**
 * The lifecycle of a message's parts, shared by the server (the processor, crash
 * recovery) and the browser (the session store). Pure: only type imports, so client
 * components may use it at run time.
 *
 * - A tool moves pending → running → completed, or to error from pending or running;
 *   no other move exists.
 * - A part left open when a turn ends (streaming text or reasoning, a tool that did not
 *   finish) is closed: text gets its end time, a tool becomes the error "Tool execution
 *   aborted", keeping what a running tool had reported (a command's output so far).
 * - Of two copies of one part, the one further along wins: final text over streaming
 *   text, longer streaming text over shorter, and a tool's state never moves back.
 */

export type ToolStatus = ToolPart["state"]["status"];

/** The error of a tool that did not finish because its turn ended (abort, crash, failure). */
export const ABORTED_TOOL = "Tool execution aborted";

const MOVES: Record<ToolStatus, readonly ToolStatus[]> = {
  pending: ["running", "error"],
  running: ["completed", "error"],
  completed: [],
  error: [],
};

/** Whether a tool may move from one state to another. */
export function canMove(from: ToolStatus, to: ToolStatus): boolean {
  return MOVES[from].includes(to);
}

type CompletedState = Extract<ToolPart["state"], { status: "completed" }>;

/** What a finished tool call returned. */
export interface ToolResultFields {
  output: string;
  title: string;
  metadata?: Record<string, unknown>;
  attachments?: CompletedState["attachments"];
}

/**
 * The one shape of a completed tool: a running tool completed at `now` with `result` (its
 * metadata joins what the tool reported while running), or undefined when the tool is not
 * running (the move is illegal: it never moves back or twice).
 */
export function complete(part: ToolPart, result: ToolResultFields, now: number): ToolPart | undefined {
  const { state } = part;
  if (state.status !== "running") return undefined;
  return {
    ...part,
    state: {
      status: "completed",
      input: state.input,
      output: result.output,
      title: result.title,
      metadata: { ...state.metadata, ...result.metadata },
      time: { start: state.time.start, end: now },
      ...(result.attachments?.length ? { attachments: result.attachments } : {}),
    },
  };
}

/**
 * The one shape of a failed tool: a pending or running tool ended at `now` with `error`,
 * keeping what a running tool had reported (its metadata, its start), or undefined when
 * it has ended already.
 */
export function fail(part: ToolPart, error: string, now: number): ToolPart | undefined {
  if (!canMove(part.state.status, "error")) return undefined;
  const running = part.state.status === "running" ? part.state : undefined;
  return {
    ...part,
    state: {
      status: "error",
      input: part.state.input,
      error,
      ...(running?.metadata ? { metadata: running.metadata } : {}),
      time: { start: running?.time.start ?? now, end: now },
    },
  };
}

/** A tool that did not finish, closed as aborted at `now` (one that ended is returned as it is). */
export function abortTool(part: ToolPart, now: number): ToolPart {
  return fail(part, ABORTED_TOOL, now) ?? part;
}

/** Whether a part is still open (streaming text or reasoning, an unfinished tool). */
export function isOpen(part: Part): boolean {
  if (part.type === "text" || part.type === "reasoning") return part.time?.end === undefined;
  if (part.type === "tool") return part.state.status === "pending" || part.state.status === "running";
  return false;
}

/** The closed copy of a part left open at `now`, or undefined when it is not open. */
export function closePart(part: Part, now: number): Part | undefined {
  if (!isOpen(part)) return undefined;
  if (part.type === "tool") return abortTool(part, now);
  if (part.type === "text" || part.type === "reasoning") return { ...part, time: { start: part.time?.start ?? now, end: now } };
  return undefined;
}

type TextLike = Extract<Part, { type: "text" | "reasoning" }>;
const TOOL_RANK: Record<ToolStatus, number> = { pending: 0, running: 1, completed: 2, error: 2 };

function isText(part: Part): part is TextLike {
  return part.type === "text" || part.type === "reasoning";
}

/** True when `incoming` should replace `current` (two copies of the same part). */
export function isNewer(current: Part, incoming: Part): boolean {
  if (isText(current) && isText(incoming)) {
    const currentFinal = current.time?.end !== undefined;
    const incomingFinal = incoming.time?.end !== undefined;
    if (currentFinal) return incomingFinal;
    return incomingFinal || incoming.text.length >= current.text.length;
  }
  if (current.type === "tool" && incoming.type === "tool") return TOOL_RANK[incoming.state.status] >= TOOL_RANK[current.state.status];
  return true;
}
