import type { WithParts } from "@/components/chat/types";

/**
 * What a screen reader hears when the agent stops working (the session goes back to idle):
 * from the last assistant message of the conversation, whether the reply finished, was
 * stopped, or failed and why.
 */
export function replyAnnouncement(messages: readonly WithParts[]): string {
  const info = messages.findLast((m) => m.info.role === "assistant")?.info;
  const error = info?.role === "assistant" ? info.error : undefined;
  if (!error) return "The agent finished its reply.";
  if (error.name === "AbortedError") return "The agent's reply was stopped.";
  const reason = error.message ?? error.name;
  return `The agent's reply failed: ${reason}`;
}
