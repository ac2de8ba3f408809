import type { Bus, Envelope } from "../server/bus/bus";
import { type ParleyError, type ParleyErrorCode, isParleyError } from "../server/errors";
import * as Id from "../server/id";
import type { Context } from "../server/services";
import type { AssistantMessage, Part, TextPart, UserMessage } from "../server/session/message";
import { updateMessage, updatePart } from "../server/session/transcript";
import { NO_TOKENS, assistantInfo } from "./messages";

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

/** A finished assistant message (openai/gpt-test, 10 tokens in, 5 out), made now. */
export function assistantMessage(sessionId: string, parentId: string, overrides: Partial<AssistantMessage> = {}): AssistantMessage {
  const now = Date.now();
  const tokens = { ...NO_TOKENS, input: 10, output: 5 };
  return assistantInfo({ id: Id.ascending("message"), sessionId, parentId, providerId: "openai", modelId: "gpt-test", cost: 0.001, tokens, time: { created: now, completed: now }, finish: "stop", ...overrides });
}

/** A finished reply of the built-in offline model, working in `directory`, free, made now. */
export function offlineReply(sessionId: string, parentId: string, directory: string, overrides: Partial<AssistantMessage> = {}): AssistantMessage {
  const now = Date.now();
  return assistantInfo({ id: Id.ascending("message"), sessionId, parentId, path: { cwd: directory, root: directory }, time: { created: now, completed: now }, ...overrides });
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

/** An error as another bundled copy of server/errors.ts throws it (Next.js bundles server code per route): the ParleyError brand, another class. */
export function otherCopyError(className: string, code: ParleyErrorCode, message: string): Error & { code: ParleyErrorCode } {
  const brand: unique symbol = Symbol.for("parley.error") as never;
  class OtherCopy extends Error {
    override name = className;
    readonly [brand] = true;
    readonly code = code;
  }
  return new OtherCopy(message);
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
