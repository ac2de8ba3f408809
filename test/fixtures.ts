import type { Bus, Envelope } from "../server/bus/bus";
import { type ParleyError, type ParleyErrorCode, isParleyError } from "../server/errors";
import * as Id from "../server/id";
import type { Context } from "../server/services";
import type { AssistantMessage, Part, TextPart, UserMessage } from "../server/session/message";
import { updateMessage, updatePart } from "../server/session/transcript";

/** Builders of valid messages and parts for tests, and a recorder of bus events. */

export function userMessage(sessionId: string, overrides: Partial<UserMessage> = {}): UserMessage {
  return {
    id: Id.ascending("message"),
    sessionId,
    role: "user",
    time: { created: Date.now() },
    agent: "build",
    model: { providerId: "openai", modelId: "gpt-test" },
    ...overrides,
  };
}

export function assistantMessage(sessionId: string, parentId: string, overrides: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    id: Id.ascending("message"),
    sessionId,
    role: "assistant",
    parentId,
    providerId: "openai",
    modelId: "gpt-test",
    agent: "build",
    path: { cwd: "/tmp", root: "/tmp" },
    cost: 0.001,
    tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
    time: { created: Date.now(), completed: Date.now() },
    finish: "stop",
    ...overrides,
  };
}

export function textPart(sessionId: string, messageId: string, text: string): TextPart {
  return { id: Id.ascending("part"), sessionId, messageId, type: "text", text, time: { start: Date.now(), end: Date.now() } };
}

export function toolPart(sessionId: string, messageId: string): Part {
  const start = Date.now();
  return {
    id: Id.ascending("part"),
    sessionId,
    messageId,
    type: "tool",
    callId: `call_${Id.ascending("tool").slice(5, 21)}`,
    tool: "read",
    state: { status: "completed", input: { path: "README.md" }, output: "# Readme", title: "README.md", metadata: {}, time: { start, end: start + 5 } },
  };
}

export function stepFinishPart(sessionId: string, messageId: string): Part {
  return {
    id: Id.ascending("part"),
    sessionId,
    messageId,
    type: "step-finish",
    reason: "stop",
    cost: 0.001,
    tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
  };
}

/**
 * Writes `turns` user/assistant exchanges through the session module: each user message
 * has one text part, each assistant message a step-start, a text, a tool and a step-finish.
 */
export async function seedTurns(ctx: Context, sessionId: string, turns: number) {
  const written: { user: UserMessage; assistant: AssistantMessage; parts: Part[] }[] = [];
  for (let i = 0; i < turns; i++) {
    const user = userMessage(sessionId);
    await updateMessage(ctx, user);
    const parts: Part[] = [textPart(sessionId, user.id, `question ${i}`)];
    await updatePart(ctx, parts[0]!);
    const assistant = assistantMessage(sessionId, user.id);
    await updateMessage(ctx, assistant);
    const answer: Part[] = [
      { id: Id.ascending("part"), sessionId, messageId: assistant.id, type: "step-start" },
      textPart(sessionId, assistant.id, `answer ${i}`),
      toolPart(sessionId, assistant.id),
      stepFinishPart(sessionId, assistant.id),
    ];
    for (const part of answer) await updatePart(ctx, part);
    written.push({ user, assistant, parts: [...parts, ...answer] });
  }
  return written;
}

/** Records every event a bus delivers for one team (optionally one session). */
export function record(bus: Bus, teamId: string, sessionId?: string) {
  const events: Envelope[] = [];
  const stop = bus.subscribe({ teamId, sessionId }, (event) => events.push(event));
  return {
    events,
    stop,
    names: () => events.map((e) => e.name),
    clear: () => events.splice(0),
  };
}

/** Awaits `work`, which must fail with a ParleyError of one of `codes`; returns it. */
export async function parleyError(work: Promise<unknown>, ...codes: ParleyErrorCode[]): Promise<ParleyError> {
  let outcome: unknown;
  try {
    await work;
  } catch (error) {
    outcome = error;
  }
  if (!isParleyError(outcome)) {
    throw new Error(`expected a ParleyError (${codes.join("/")}), got ${outcome === undefined ? "success" : String(outcome)}`);
  }
  if (!codes.includes(outcome.code)) throw new Error(`expected ParleyError ${codes.join("/")}, got ${outcome.code}: ${outcome.message}`);
  return outcome;
}
