import type { AssistantMessage } from "../server/session/message";

/**
 * Messages as tests write them, the server's and the components' alike: pure values (no
 * id generator, no clock, no database), so only what a test cares about is spelled out.
 */

/** No tokens at all. */
export const NO_TOKENS: AssistantMessage["tokens"] = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };

/** An assistant message of the build agent, free and without tokens, made at time 0 in /tmp; `fields` name it and may change anything. */
export function assistantInfo(fields: Pick<AssistantMessage, "id" | "sessionId" | "parentId"> & Partial<AssistantMessage>): AssistantMessage {
  return {
    role: "assistant",
    providerId: "parley",
    modelId: "offline",
    agent: "build",
    path: { cwd: "/tmp", root: "/tmp" },
    cost: 0,
    tokens: NO_TOKENS,
    time: { created: 0 },
    ...fields,
  };
}
