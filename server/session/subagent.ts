import type { Agent } from "../agent/agent";
import { isParleyError } from "../errors";
import { type Services, type SubagentCaller, withActor } from "../services";
import type { ChildCall, SubagentRequest, SubagentResult } from "../tool/tool";
import { ToolError } from "../tool/tool";
import * as Event from "./events";
import type { Info } from "./info";
import * as Prompt from "./prompt";
import * as SessionOps from "./session";
import * as Store from "./store";

/**
 * Subagents (the task tool): a child session of the calling session — `parentId` the
 * caller, title "<description> (@<agent> subagent)", the parent's session rules, the
 * subagent as its agent — in which the subagent's loop answers the prompt like any
 * session's (one runner per session, the same run lock). The child sees only its own
 * messages. While it runs, the parent's task call reports the child's tool calls; when
 * it ends, its last reply's text is the result, and a failed or stopped child is an error
 * of the call (the parent goes on). Aborting the call aborts the child, wherever it runs.
 */

export interface SubagentIo {
  signal: AbortSignal;
  /** The call's live metadata: the child and its tool calls so far. */
  progress(metadata: { sessionId: string; summary: ChildCall[] }): void;
}

export async function runSubagent(s: Services, caller: SubagentCaller, request: SubagentRequest, io: SubagentIo): Promise<SubagentResult> {
  const agent = s.agents.find(request.agent);
  if (!agent || agent.mode !== "subagent") {
    const known = s.agents.subagents().map((a) => a.name).join(", ");
    throw new ToolError(`There is no subagent "${request.agent}". Use one of: ${known}.`);
  }
  // The child acts for the parent session's author, inside the parent's team.
  const ctx = withActor(s, { userId: caller.authorId, teamId: caller.teamId });
  const child = await childSession(ctx, caller, request, agent);

  const calls = new Map<string, ChildCall>();
  const report = () => io.progress({ sessionId: child.id, summary: [...calls.values()] });
  report();
  const stop = s.bus.subscribe({ teamId: child.teamId, sessionId: child.id }, (event) => {
    if (event.name !== Event.PartUpdated.name) return;
    // Every event of the child passes here (each streamed delta too): only its tool parts
    // are read, and only those are validated.
    const payload = event.payload as { part?: { type?: unknown } } | undefined;
    if (payload?.part?.type !== "tool") return;
    const { part } = Event.PartUpdated.schema.parse(event.payload);
    if (part.type !== "tool") return;
    const title = part.state.status === "running" || part.state.status === "completed" ? part.state.title : undefined;
    const before = calls.get(part.id);
    if (before?.state.status === part.state.status && before.state.title === title) return;
    calls.set(part.id, { id: part.id, tool: part.tool, state: { status: part.state.status, ...(title ? { title } : {}) } });
    report();
  });
  const onAbort = () => {
    Prompt.abort(ctx, child.id).catch((error: unknown) => console.error(`[session] could not abort subagent session ${child.id}`, error));
  };
  try {
    io.signal.throwIfAborted();
    io.signal.addEventListener("abort", onAbort, { once: true });
    await Prompt.prompt(ctx, { sessionId: child.id, parts: [{ type: "text", text: request.prompt }], agent: agent.name, ...(child.model ? { model: child.model } : {}) });
    await s.runners.idle(child.id);
  } finally {
    io.signal.removeEventListener("abort", onAbort);
    stop();
  }
  if (io.signal.aborted) throw new ToolError("The subagent was stopped.");
  return { sessionId: child.id, text: await finalText(s, child.id), summary: [...calls.values()] };
}

/** A new child session, or with `taskId` the earlier child to continue in. */
async function childSession(ctx: ReturnType<typeof withActor>, parent: SubagentCaller, request: SubagentRequest, agent: Agent): Promise<Info> {
  if (request.taskId) {
    let found: Info;
    try {
      found = await SessionOps.get(ctx, request.taskId);
    } catch (error) {
      if (isParleyError(error) && (error.code === "NOT_FOUND" || error.code === "INVALID")) throw new ToolError(`There is no task ${request.taskId}.`);
      throw error;
    }
    if (found.parentId !== parent.sessionId) throw new ToolError(`Task ${request.taskId} is not a subagent session of this session.`);
    return found;
  }
  return SessionOps.createChild(ctx, {
    parent: { id: parent.sessionId, projectId: parent.projectId, directory: parent.directory, ...(parent.permission ? { permission: parent.permission } : {}) },
    title: `${request.description} (@${agent.name} subagent)`.slice(0, 200),
    agent: agent.name,
    ...(agent.model ? { model: agent.model } : parent.model ? { model: parent.model } : {}),
  });
}

/** The child's answer: the text of its last reply; a failed or stopped reply is an error of the call. */
async function finalText(s: Services, childId: string): Promise<string> {
  const reply = await Store.lastReply(s.db, childId);
  const info = reply?.info;
  if (!reply || info?.role !== "assistant") throw new ToolError("The subagent did not answer.");
  if (info.error) throw new ToolError(`The subagent failed: ${info.error.message ?? info.error.name}`);
  const text = reply.parts.flatMap((p) => (p.type === "text" && !p.synthetic ? [p.text] : [])).join("\n\n").trim();
  return text || "(The subagent finished without a final message.)";
}
