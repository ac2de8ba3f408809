import type { UserMessage } from "./types";

/** How a user message's author is named: "You" for the viewer's own, else the author's name. */
export function authorLabel(author: UserMessage["author"], viewerId: string | undefined): string {
  if (!author) return "Team member";
  return author.id === viewerId ? "You" : author.name || "Team member";
}

/** Up to two initials of a name (first and last word), for its avatar. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0], words.at(-1)] : [words[0]];
  return letters.map((word) => [...(word ?? "")][0] ?? "").join("").toUpperCase();
}
