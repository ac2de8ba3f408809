import * as Id from "../id";
import type { Services, SubagentCaller } from "../services";
import { taskResult } from "../tool/task";
import { type PartOf, type UserMessage, type WithParts, newAssistant } from "./message";
import { TurnWriter } from "./writer";
import { complete, fail } from "../../lib/part-lifecycle";
import { logger } from "../log";

const log = logger("session");

/**
 * A subtask the user started (`@explore find …` in the composer): the user message holds a
 * `subtask` part, and before the model answers that message the loop runs it as a task
 * call of its own — an assistant message with a `task` tool part, driven exactly like the
 * tool (server/session/subagent.ts) — whose result the model then reads.
 */

/** The subtask of the message being answered, unless a reply to that message already ran it. */
export function pendingSubtask(messages: WithParts[], user: UserMessage): PartOf<"subtask"> | undefined {
  const message = messages.find((m) => m.info.id === user.id);
  const subtask = message?.parts.find((p): p is PartOf<"subtask"> => p.type === "subtask");
  if (!subtask) return undefined;
  const answered = messages.some((m) => m.info.role === "assistant" && m.info.parentId === user.id);
  return answered ? undefined : subtask;
}

export interface SubtaskRun {
  /** The session whose message holds the subtask. */
  caller: SubagentCaller;
  user: UserMessage;
  subtask: PartOf<"subtask">;
  signal: AbortSignal;
}

export async function runSubtask(s: Services, run: SubtaskRun): Promise<void> {
  const { user, subtask } = run;
  const { teamId, sessionId } = run.caller;
  const started = s.clock.now();
  const assistant = newAssistant(user, { agent: user.agent, directory: run.caller.directory, now: started });
  // The turn's writes (writer.ts): each of them stored before it resolves (`now`), in turn.
  const writer = new TurnWriter(s, teamId);
  await writer.message(assistant);
  const input = { description: subtask.description, prompt: subtask.prompt, subagent_type: subtask.agent };
  let part: PartOf<"tool"> = {
    id: Id.ascending("part"),
    sessionId,
    messageId: assistant.id,
    type: "tool",
    callId: `subtask_${subtask.id}`,
    tool: "task",
    state: { status: "running", input, title: subtask.description, time: { start: started } },
  };
  // Writes take turns, so a late progress report never lands after the result.
  const save = async (next: PartOf<"tool">) => {
    part = next;
    await writer.write(next, "now");
  };
  // Stored while the child starts: a later write of the call waits for it.
  save(part).catch((error: unknown) => log.error(`could not store the call of subtask ${subtask.id}`, error));
  try {
    const result = await s.subagents.run(run.caller, { description: subtask.description, prompt: subtask.prompt, agent: subtask.agent, fromMember: true }, {
      signal: run.signal,
      progress: (metadata) => {
        if (part.state.status !== "running") return;
        // The child's question shows on this call (approval), as on a task call of the model.
        const { approval: _previous, ...state } = part.state;
        const approval = metadata.asking ? { approval: { permission: metadata.asking.permission } } : {};
        save({ ...part, state: { ...state, ...approval, metadata: { ...state.metadata, ...metadata } } }).catch((error: unknown) =>
          log.error(`could not report the progress of subtask ${subtask.id}`, error),
        );
      },
    });
    // The result joins what the child reported while running (its session, its summary).
    const done = complete(part, { title: subtask.description, ...taskResult(result) }, s.clock.now());
    if (done) await save(done);
  } catch (error) {
    const failed = fail(part, error instanceof Error ? error.message : String(error), s.clock.now());
    if (failed) await save(failed);
  }
  await writer.message({ ...assistant, finish: "tool-calls", time: { created: started, completed: s.clock.now() } });
}
