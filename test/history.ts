import * as Id from "../server/id";
import type { AssistantMessage, Part, UserMessage, WithParts } from "../server/session/message";
import { emptyTokens } from "../server/session/message";

/** In-memory histories for unit tests of what reads them (filterCompacted, prune, …). */

/** A part without its ids (distributed over the union). */
export type PartInput = Part extends infer P ? (P extends Part ? Omit<P, "id" | "sessionId" | "messageId"> : never) : never;

export function historyBuilder(sessionId = Id.ascending("session")) {
  const withIds = (messageId: string, parts: PartInput[]): Part[] =>
    parts.map((p) => ({ ...p, id: Id.ascending("part"), sessionId, messageId }) as Part);
  return {
    sessionId,
    user(parts: PartInput[]): WithParts {
      const info: UserMessage = {
        id: Id.ascending("message"),
        sessionId,
        role: "user",
        time: { created: 1 },
        agent: "build",
        model: { providerId: "openai", modelId: "gpt-test" },
      };
      return { info, parts: withIds(info.id, parts) };
    },
    assistant(parent: WithParts, parts: PartInput[], extra: Partial<AssistantMessage> = {}): WithParts {
      const info: AssistantMessage = {
        id: Id.ascending("message"),
        sessionId,
        role: "assistant",
        parentId: parent.info.id,
        providerId: "openai",
        modelId: "gpt-test",
        agent: "build",
        path: { cwd: "/", root: "/" },
        cost: 0,
        tokens: emptyTokens(),
        finish: "stop",
        time: { created: 1, completed: 2 },
        ...extra,
      };
      return { info, parts: withIds(info.id, parts) };
    },
  };
}

export const text = (t: string, extra: { synthetic?: boolean; ignored?: boolean } = {}): PartInput => ({ type: "text", text: t, ...extra });

export const compaction = (auto: boolean): PartInput => ({ type: "compaction", auto });

/** A completed tool call whose output is `chars` characters long (chars / 4 estimated tokens). */
export function toolOutput(chars: number, options: { tool?: string; compacted?: number; callId?: string } = {}): PartInput {
  return {
    type: "tool",
    callId: options.callId ?? Id.ascending("tool"),
    tool: options.tool ?? "read",
    state: {
      status: "completed",
      input: { path: "a.ts" },
      output: "x".repeat(chars),
      title: "a.ts",
      metadata: {},
      time: { start: 1, end: 2, ...(options.compacted !== undefined ? { compacted: options.compacted } : {}) },
    },
  };
}
