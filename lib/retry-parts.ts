import type { Part, PartOf } from "../server/session/message";

/**
 * A reply whose model call failed and was retried holds one retry part per failed attempt.
 * The transcript shows them as one card that updates (the latest attempt, when the next one
 * starts, the last error; earlier attempts on request), in the place of the first. Pure:
 * shared by the chat and share pages and their tests.
 */

export type RetryPart = PartOf<"retry">;

export type PartItem = { kind: "part"; part: Part } | { kind: "retries"; key: string; retries: RetryPart[] };

/** The parts to show in order, a message's retry parts gathered into one item where the first was. */
export function groupRetries(parts: Part[]): PartItem[] {
  const retries = parts.filter((part): part is RetryPart => part.type === "retry");
  if (retries.length === 0) return parts.map((part) => ({ kind: "part", part }));
  const items: PartItem[] = [];
  for (const part of parts) {
    if (part.type !== "retry") items.push({ kind: "part", part });
    else if (part === retries[0]) items.push({ kind: "retries", key: part.id, retries: [...retries].sort((a, b) => a.attempt - b.attempt) });
  }
  return items;
}

/** What became of the retried call: still going, went through, failed in the end, or stopped by a person. */
export type RetryOutcome = "retrying" | "recovered" | "failed" | "stopped";

export function retryOutcome(reply: { time: { completed?: number | undefined }; error?: { name: string } | undefined } | undefined): RetryOutcome {
  if (reply?.error) return reply.error.name === "AbortedError" ? "stopped" : "failed";
  return reply?.time.completed === undefined ? "retrying" : "recovered";
}
