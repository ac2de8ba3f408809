import { MarkdownView } from "@/components/parts/markdown-render";
import type { WithParts } from "@/components/chat/types";
import { isLoaded } from "@/lib/highlight";
import { fencedLanguages } from "@/lib/highlight-languages";

/**
 * Markdown rendered on the server (a share page), highlighted with the grammars the page
 * loaded first (`sharedLanguages`): the HTML arrives highlighted, and the browser downloads
 * neither the markdown stack nor highlight.js.
 */
export function SharedMarkdown({ text, className }: { text: string; className?: string | undefined }) {
  const grammars = fencedLanguages(text).filter(isLoaded).join(" ");
  return <MarkdownView text={text} className={className} grammars={grammars} />;
}

/** The languages of every code block in these messages' text and reasoning, to load before rendering them. */
export function sharedLanguages(messages: readonly WithParts[]): string[] {
  const languages = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === "text" || part.type === "reasoning") for (const language of fencedLanguages(part.text)) languages.add(language);
    }
  }
  return [...languages];
}
