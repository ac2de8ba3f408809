"use client";

import { useEffect, useMemo, useState } from "react";
import type { Token } from "@/lib/highlight";
import { languageOf } from "@/lib/highlight-languages";
import { useCardOpen } from "./card-open";
import "./code-highlight.css";

type Highlighter = typeof import("@/lib/highlight");

/**
 * The highlighter with `language`'s grammar, loaded when a view first needs it (not part of
 * the page's first JavaScript); undefined until then, and for code without a language.
 */
function useHighlighter(language: string | undefined): Highlighter | undefined {
  const [highlighter, setHighlighter] = useState<{ language: string; module: Highlighter }>();
  useEffect(() => {
    if (!language) return;
    let live = true;
    import("@/lib/highlight")
      .then(async (module) => {
        await module.loadLanguages([language]);
        if (live) setHighlighter({ language, module });
      })
      // Without its grammar the code stays plain text.
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [language]);
  return highlighter && highlighter.language === language ? highlighter.module : undefined;
}

function plainLines(code: string): Token[][] {
  return code.split("\n").map((line) => (line ? [{ text: line, className: undefined }] : []));
}

/**
 * A file's text with its line numbers and syntax highlighting (the language from the file
 * name). Inside a collapsed card it is plain text until the card opens.
 */
export function CodeView({ code, path, firstLine = 1 }: { code: string; path: string | undefined; firstLine?: number }) {
  const open = useCardOpen();
  const language = path ? languageOf(path) : undefined;
  if (!open) return <pre className="font-mono text-[12.5px] whitespace-pre-wrap">{code}</pre>;
  return <HighlightedCode code={code} language={language} firstLine={firstLine} />;
}

function HighlightedCode({ code, language, firstLine }: { code: string; language: string | undefined; firstLine: number }) {
  const highlighter = useHighlighter(language);
  const lines = useMemo(() => (highlighter ? highlighter.highlightLines(code, language) : plainLines(code)), [highlighter, code, language]);
  const width = String(firstLine + lines.length - 1).length;
  return (
    <div
      data-testid="code-view"
      data-language={language ?? "text"}
      data-highlighted={highlighter ? "true" : undefined}
      className="max-h-96 overflow-auto rounded-lg bg-zinc-900 py-2 font-mono text-[12.5px] leading-relaxed text-zinc-100"
    >
      <div className="grid min-w-max grid-cols-[auto_1fr]">
        {lines.map((tokens, i) => (
          <div key={i} data-testid="code-line" className="contents">
            <span
              data-testid="line-number"
              aria-hidden="true"
              style={{ minWidth: `calc(${width}ch + 1.5rem)` }}
              className="pr-3 pl-3 text-right text-zinc-400 tabular-nums select-none"
            >
              {firstLine + i}
            </span>
            <code className="pr-4 whitespace-pre">
              {tokens.map((token, k) =>
                token.className ? (
                  <span key={k} className={token.className}>
                    {token.text}
                  </span>
                ) : (
                  token.text
                ),
              )}
            </code>
          </div>
        ))}
      </div>
    </div>
  );
}
