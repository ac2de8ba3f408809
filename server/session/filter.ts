import type { AssistantMessage, WithParts } from "./message";

/**
 * filterCompacted: the model sees only the latest completed compaction — its
 * user message (the compaction marker) and the summary answering it — and what follows.
 * A compaction is completed when an assistant message with `summary: true` answers it,
 * finished and without an error; a pending or failed one cuts nothing. With several
 * compactions only the newest completed one counts.
 *
 * `history` is in ascending order (oldest first); so is the result.
 */
export function filterCompacted(history: WithParts[]): WithParts[] {
  const completed = new Set<string>();
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i];
    if (!message) continue;
    const info = message.info;
    if (info.role === "assistant" && isCompletedSummary(info)) completed.add(info.parentId);
    if (info.role === "user" && completed.has(info.id) && message.parts.some((p) => p.type === "compaction")) {
      return history.slice(i);
    }
  }
  return history;
}

/** A summary that answers its compaction for good. */
export function isCompletedSummary(info: AssistantMessage): boolean {
  return info.summary === true && info.finish !== undefined && info.error === undefined;
}

/**
 * A compaction waiting to run: a user message with a compaction marker after the last
 * assistant message (user messages queued behind it wait for it).
 */
export function pendingCompaction(history: WithParts[]): WithParts | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i];
    if (!message || message.info.role === "assistant") return undefined;
    if (message.parts.some((p) => p.type === "compaction")) return message;
  }
  return undefined;
}
