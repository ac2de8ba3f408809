"use client";

import { useEffect, useMemo, useState } from "react";
import { fencedLanguages } from "@/lib/highlight-languages";

type Renderer = typeof import("./markdown-render");
type Highlighter = typeof import("@/lib/highlight");

/**
 * The markdown stack (react-markdown, remark-gfm, highlight.js) is not part of a page's
 * first JavaScript: it is loaded the first time a text is shown, and each code block's
 * grammar when a block in that language is (lib/highlight-languages.ts). Until then the
 * text is shown as it was written; once loaded, every later text renders at once.
 */
let loaded: { render: Renderer; highlight: Highlighter } | undefined;
let loading: Promise<{ render: Renderer; highlight: Highlighter }> | undefined;

function loadStack(): Promise<{ render: Renderer; highlight: Highlighter }> {
  loading ??= Promise.all([import("./markdown-render"), import("@/lib/highlight")]).then(
    ([render, highlight]) => (loaded = { render, highlight }),
    (error: unknown) => {
      // A failed download is tried again by the next text that needs it.
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Starts loading the markdown stack ahead of the first text (say, while a page's messages load). */
export function preloadMarkdown(): void {
  void loadStack().catch(() => undefined);
}

/** The languages of `text`'s fenced code that are loaded, as one key ("" when none). */
function loadedKey(languages: readonly string[]): string {
  return loaded ? languages.filter((l) => loaded?.highlight.isLoaded(l)).join(" ") : "";
}

export function Markdown({ text, className = "" }: { text: string; className?: string }) {
  const languages = useMemo(() => fencedLanguages(text), [text]);
  const wanted = languages.join(" ");
  const [, setVersion] = useState(0);
  const grammars = loadedKey(languages);
  const ready = loaded !== undefined && grammars === wanted;
  useEffect(() => {
    if (ready) return;
    let live = true;
    loadStack()
      .then((stack) => stack.highlight.loadLanguages(wanted ? wanted.split(" ") : []))
      .then(
        () => live && setVersion((v) => v + 1),
        // Shown as plain text; the next render of this text tries again.
        () => undefined,
      );
    return () => {
      live = false;
    };
  }, [ready, wanted]);
  if (!loaded) {
    return <div className={`text-[15px] leading-relaxed break-words whitespace-pre-wrap text-zinc-800 ${className}`}>{text}</div>;
  }
  const { MarkdownView } = loaded.render;
  return <MarkdownView text={text} className={className} grammars={grammars} />;
}
