import type { AssistantMessage, WithParts } from "./types";

/**
 * What the chat list shows, one virtualized row per entry: a message, or a compaction —
 * the marker (the user message holding the compaction part) with the summary that
 * answers it (the assistant message with `summary: true` whose parent is the marker),
 * shown together so the summary can stay collapsed under its marker.
 *
 * Rows hold the store's message objects as they are, so a memoized row re-renders only
 * when one of its own messages changed.
 */
export type ChatRow =
  | { kind: "message"; key: string; message: WithParts }
  | { kind: "compaction"; key: string; request: WithParts; summary: WithParts | undefined };

export function isCompactionRequest(message: WithParts): boolean {
  return message.info.role === "user" && message.parts.some((part) => part.type === "compaction");
}

function summaryOf(message: WithParts): AssistantMessage | undefined {
  return message.info.role === "assistant" && message.info.summary === true ? message.info : undefined;
}

/** Rows for messages in id order (oldest first). */
export function chatRows(messages: WithParts[]): ChatRow[] {
  const rows: ChatRow[] = [];
  const compactions = new Map<string, number>();
  for (const message of messages) {
    const summary = summaryOf(message);
    const at = summary ? compactions.get(summary.parentId) : undefined;
    if (at !== undefined) {
      const row = rows[at];
      if (row?.kind === "compaction" && row.summary === undefined) {
        rows[at] = { ...row, summary: message };
        continue;
      }
    }
    if (isCompactionRequest(message)) {
      compactions.set(message.info.id, rows.length);
      rows.push({ kind: "compaction", key: message.info.id, request: message, summary: undefined });
    } else {
      rows.push({ kind: "message", key: message.info.id, message });
    }
  }
  return rows;
}

/** A first guess of a row's height in pixels, until it is measured. */
export function estimateRowSize(row: ChatRow | undefined): number {
  if (!row) return 120;
  if (row.kind === "compaction") return 110;
  if (row.message.info.role === "user") return 110;
  const shown = row.message.parts.filter((p) => p.type !== "step-start" && p.type !== "step-finish").length;
  return 70 + 60 * Math.min(Math.max(shown, 1), 10);
}
