"use client";

import { useMemo } from "react";
import { highlightLines, languageOf } from "@/lib/highlight";
import { useCardOpen } from "./card-open";
import "./code-highlight.css";

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
  const lines = useMemo(() => highlightLines(code, language), [code, language]);
  const width = String(firstLine + lines.length - 1).length;
  return (
    <div
      data-testid="code-view"
      data-language={language ?? "text"}
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
