import { type Agent, inheritedRules, isSubagent } from "../agent/agent";
import { sessionAgents } from "../agent/project";
import { isParleyError } from "../errors";
import type { Ruleset } from "../permission/schema";
import { type Services, type SubagentCaller, type SubagentProgress, withActor } from "../services";
import type { ChildCall, SubagentRequest, SubagentResult } from "../tool/tool";
import { ToolError } from "../tool/tool";
import * as Event from "./events";
import type { Envelope } from "../bus/bus";
import type { Info } from "./info";
import type { AssistantMessage, Part, WithParts } from "./message";
import { tooDeep } from "./depth";
import { isNewer, isOpen } from "../../lib/part-lifecycle";
import * as Prompt from "./prompt";
import { json } from "./rows";
import * as SessionOps from "./session";
import * as Store from "./store";
import { logger } from "../log";

const log = logger("session");

/**
 * Subagents (the task tool): a child session of the calling session — `parentId` the
 * caller, title "<description> (@<agent> subagent)", the parent's session rules, the
 * subagent as its agent — in which the subagent's loop answers the prompt like any
 * session's (one runner per session, the same run lock). The child sees only its own
 * messages. While it runs, the parent's task call reports the child's tool calls; when
 * it ends, its last reply's text is the result, and a failed or stopped child is an error
 * of the call (the parent goes on). Aborting the call aborts the child, wherever it runs.
 *
 * Limits: subagent sessions nest at most `Agents.maxDepth` levels below a root session
 * (a session at that depth starts none: no task tool, its calls and `@agent` prompts are
 * refused), and a child never has a tool the calling agent lacks (agent.ts
 * inheritedRules: a child of the read-only `plan` is read-only too). While the child — or
 * a subagent of it — waits for a permission answer, the call's progress names the
 * question (`asking`), so the parent's task card shows it and it can be answered there.
 */

export interface SubagentIo {
  signal: AbortSignal;
  /** The call's live metadata: the child, its tool calls so far and the question it waits on. */
  progress(metadata: SubagentProgress): void;
}

/** The question a child's tool part waits on: its own (the child asks), or the one a task call of it reports (a grandchild asks). */
function askingOf(part: Extract<Part, { type: "tool" }>, childId: string): SubagentProgress["asking"] {
  if (part.state.status !== "running" || !part.state.approval) return null;
  const nested = part.state.metadata?.asking;
  if (typeof nested === "object" && nested !== null && "sessionId" in nested && typeof nested.sessionId === "string") {
    return { sessionId: nested.sessionId, permission: part.state.approval.permission };
  }
  return { sessionId: childId, permission: part.state.approval.permission };
}

export async function runSubagent(s: Services, caller: SubagentCaller, request: SubagentRequest, io: SubagentIo): Promise<SubagentResult> {
  // The session's agents: the server's and its working tree's agent files.
  const { agents } = await sessionAgents(s, caller);
  const agent = agents.find(request.agent);
  if (!agent || !isSubagent(agent)) {
    const known = agents.subagents().map((a) => a.name).join(", ");
    throw new ToolError(`There is no subagent "${request.agent}". Use one of: ${known}.`);
  }
  if (caller.depth >= s.agents.maxDepth) throw new ToolError(tooDeep(s.agents.maxDepth));
  // The child's prompt may itself start a subagent (`@explore …`): refused before the child is made when the child is at the cap.
  if (caller.depth + 1 >= s.agents.maxDepth && Prompt.subtaskOf(agents, request.prompt)) throw new ToolError(tooDeep(s.agents.maxDepth));
  // The child acts for the parent session's author, inside the parent's team.
  const ctx = withActor(s, { userId: caller.authorId, teamId: caller.teamId });
  const child = await childSession(ctx, caller, request, agent, agents.get(caller.agent));

  const calls = new Map<string, ChildCall>();
  /** Tool parts of the child waiting on a question, oldest first. */
  const waiting = new Map<string, NonNullable<SubagentProgress["asking"]>>();
  const report = () => io.progress({ sessionId: child.id, summary: [...calls.values()], asking: waiting.values().next().value ?? null });
  report();
  const answer = new ReplyWatch();
  const stop = s.bus.subscribe({ teamId: child.teamId, sessionId: child.id }, (event) => {
    answer.see(event);
    if (event.name !== Event.PartUpdated.name) return;
    // Every event of the child passes here (each streamed delta too): only its tool parts
    // are read, and only those are validated.
    if (field(field(event.payload, "part"), "type") !== "tool") return;
    const { part } = Event.PartUpdated.schema.parse(event.payload);
    if (part.type !== "tool") return;
    const title = part.state.status === "running" || part.state.status === "completed" ? part.state.title : undefined;
    const before = calls.get(part.id);
    const asking = askingOf(part, child.id);
    const askedBefore = waiting.get(part.id);
    const sameQuestion = asking?.sessionId === askedBefore?.sessionId && asking?.permission === askedBefore?.permission;
    if (before?.state.status === part.state.status && before.state.title === title && sameQuestion) return;
    calls.set(part.id, { id: part.id, tool: part.tool, state: { status: part.state.status, ...(title ? { title } : {}) } });
    if (asking) waiting.set(part.id, asking);
    else waiting.delete(part.id);
    report();
  });
  const onAbort = () => {
    Prompt.abort(ctx, child.id).catch((error: unknown) => log.error(`could not abort subagent session ${child.id}`, error));
  };
  try {
    io.signal.throwIfAborted();
    io.signal.addEventListener("abort", onAbort, { once: true });
    const input = { sessionId: child.id, parts: [{ type: "text" as const, text: request.prompt }], agent: agent.name, ...(child.model ? { model: child.model } : {}) };
    // The calling agent wrote the prompt of a task call: the child's message says so (a member's `@agent` message stays theirs).
    await (request.fromMember ? Prompt.prompt(ctx, input) : Prompt.delegate(ctx, input, { sessionId: caller.sessionId, agent: caller.agent }));
    await s.runners.idle(child.id);
  } finally {
    io.signal.removeEventListener("abort", onAbort);
    stop();
  }
  if (io.signal.aborted) throw new ToolError("The subagent was stopped.");
  // The child's last reply as its events told it, read from the database only when they did not tell it whole.
  const reply = answer.reply() ?? (await Store.lastReply(s.db, child.id));
  return { sessionId: child.id, text: finalText(reply), summary: [...calls.values()] };
}

/**
 * The child's last reply as its events tell it, so that a finished task costs no read of
 * it: the newest assistant message and its text parts. Of two copies of a text part the
 * one further along is kept (`isNewer`, lib/part-lifecycle.ts, as the browser's store
 * does): a closed part is final, whatever comes after it, and so is a finished message.
 * A streamed delta of an open part makes it unknown until its next whole write (a delta
 * crosses instances without its text); its closing write is `now` and its deltas
 * `batched` (writer.ts), so the part is whole again once it ends. Undefined when the
 * events do not tell the reply whole: no finished assistant message seen, a text part of
 * it still unknown, or an event it could not read. Never throws: the same subscriber
 * reports the child's progress.
 */
export class ReplyWatch {
  private last: AssistantMessage | undefined;
  /** Text parts by id, with their message; `part` is unset while the part is unknown (its last event an open part's delta). */
  private readonly texts = new Map<string, { messageId: string; part: Part | undefined }>();
  private unreadable = false;

  see(event: Envelope): void {
    if (event.name === Event.MessageUpdated.name) {
      const parsed = Event.MessageUpdated.schema.safeParse(event.payload);
      if (!parsed.success) this.unreadable = true;
      else if (parsed.data.info.role === "assistant" && this.isNewerMessage(parsed.data.info)) this.last = parsed.data.info;
    } else if (event.name === Event.PartUpdated.name) {
      this.seePart(event.payload);
    } else if (event.name === Event.PartRemoved.name) {
      const parsed = Event.PartRemoved.schema.safeParse(event.payload);
      if (!parsed.success) this.unreadable = true;
      else this.texts.delete(parsed.data.partId);
    }
  }

  /** A newer message, or a copy of the last one unless it is an unfinished copy of a finished one (a late event). */
  private isNewerMessage(info: AssistantMessage): boolean {
    const last = this.last;
    if (!last || info.id > last.id) return true;
    if (info.id < last.id) return false;
    return info.time.completed !== undefined || last.time.completed === undefined;
  }

  private seePart(payload: unknown): void {
    const part = field(payload, "part");
    if (field(part, "type") !== "text") return;
    const id = field(part, "id");
    const messageId = field(part, "messageId");
    if (typeof id !== "string" || typeof messageId !== "string") {
      this.unreadable = true;
      return;
    }
    const known = this.texts.get(id);
    // A streamed delta is not read (every token passes here).
    if (field(payload, "delta") !== undefined) {
      if (!known) this.texts.set(id, { messageId, part: undefined });
      else if (known.part && isOpen(known.part)) known.part = undefined;
      return;
    }
    const parsed = Event.PartUpdated.schema.safeParse(payload);
    if (!parsed.success) this.unreadable = true;
    else if (!known?.part || isNewer(known.part, parsed.data.part)) this.texts.set(id, { messageId, part: parsed.data.part });
  }

  reply(): WithParts | undefined {
    const info = this.last;
    if (this.unreadable || !info || (info.time.completed === undefined && !info.error)) return undefined;
    const parts: Part[] = [];
    for (const text of this.texts.values()) {
      if (text.messageId !== info.id) continue;
      if (!text.part) return undefined;
      parts.push(text.part);
    }
    return { info, parts: parts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) };
  }
}

/** A new child session, or with `taskId` the earlier child to continue in. */
async function childSession(ctx: ReturnType<typeof withActor>, parent: SubagentCaller, request: SubagentRequest, agent: Agent, parentAgent: Agent): Promise<Info> {
  const inherited = inheritedRules(parentAgent, ctx.tools.map((tool) => tool.id));
  if (request.taskId) {
    let found: Info;
    try {
      found = await SessionOps.get(ctx, request.taskId);
    } catch (error) {
      if (isParleyError(error) && (error.code === "NOT_FOUND" || error.code === "INVALID")) throw new ToolError(`There is no task ${request.taskId}.`);
      throw error;
    }
    if (found.parentId !== parent.sessionId) throw new ToolError(`Task ${request.taskId} is not a subagent session of this session.`);
    // Continued from a turn whose agent has less (the parent switched to plan): the child gets no more than it.
    const missing = inherited.filter((rule) => !found.permission?.some((own) => own.permission === rule.permission && own.pattern === rule.pattern && own.action === rule.action));
    if (missing.length === 0) return found;
    const permission: Ruleset = [...(found.permission ?? []), ...missing];
    return Store.updateSession(ctx, found.id, { permission: json(permission) });
  }
  const permission: Ruleset = [...(parent.permission ?? []), ...inherited];
  return SessionOps.createChild(ctx, {
    parent: { id: parent.sessionId, projectId: parent.projectId, directory: parent.directory, ...(parent.workspaceId ? { workspaceId: parent.workspaceId } : {}), ...(permission.length ? { permission } : {}) },
    title: `${request.description} (@${agent.name} subagent)`.slice(0, 200),
    agent: agent.name,
    ...(agent.model ? { model: agent.model } : parent.model ? { model: parent.model } : {}),
  });
}

/** The child's answer: the text of its last reply; a failed or stopped reply is an error of the call. */
function finalText(reply: WithParts | undefined): string {
  const info = reply?.info;
  if (!reply || info?.role !== "assistant") throw new ToolError("The subagent did not answer.");
  if (info.error) throw new ToolError(`The subagent failed: ${info.error.message ?? info.error.name}`);
  const text = reply.parts.flatMap((p) => (p.type === "text" && !p.synthetic ? [p.text] : [])).join("\n\n").trim();
  return text || "(The subagent finished without a final message.)";
}

/**
 * One field of a payload not validated yet (every event of the child passes the watchers:
 * each streamed delta too, so only what they need is looked at before a schema parses it).
 */
function field(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  const found: unknown = Reflect.get(value, key);
  return found;
}
