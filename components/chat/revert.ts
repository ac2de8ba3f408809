import type { Part, WithParts } from "./types";

/**
 * What a reverted session shows: the messages before its revert point. A whole-message
 * revert hides that message and everything after it; a part revert hides the part, the
 * parts after it in its message, and every later message. Hidden messages stay stored
 * until the next prompt deletes them (server/session/revert.ts).
 */
export interface RevertPoint {
  messageId: string;
  partId?: string | undefined;
}

export interface Shown {
  messages: WithParts[];
  /** How many messages are hidden entirely. */
  hidden: number;
}

export function shownMessages(messages: WithParts[], revert: RevertPoint | undefined): Shown {
  if (!revert) return { messages, hidden: 0 };
  const shown: WithParts[] = [];
  let hidden = 0;
  for (const message of messages) {
    const id = message.info.id;
    if (id < revert.messageId) shown.push(message);
    else if (id === revert.messageId && revert.partId !== undefined) {
      const partId = revert.partId;
      shown.push({ ...message, parts: message.parts.filter((part: Part) => part.id < partId) });
    } else hidden++;
  }
  return { messages: shown, hidden };
}

/** The files a unified diff touches, in order, each once. */
export function filesOfDiff(diff: string): string[] {
  const files: string[] = [];
  for (const match of diff.matchAll(/^diff --git a\/(.+?) b\/(.+)$/gm)) {
    const file = match[2] ?? match[1];
    if (file && !files.includes(file)) files.push(file);
  }
  return files;
}

/** A message as markdown, for the clipboard: its text parts, in order, a blank line apart. */
export function messageMarkdown(message: WithParts): string {
  return message.parts
    .flatMap((part) => (part.type === "text" && !part.synthetic && !part.ignored && part.text.trim() !== "" ? [part.text.trim()] : []))
    .join("\n\n");
}
