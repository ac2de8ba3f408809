"use client";

import { type ReactNode, isValidElement, useRef } from "react";
import { useCopy } from "@/components/ui/copy";

/** The language of a fenced block, from its <code class="language-…">. */
function languageOf(children: ReactNode): string | undefined {
  if (!isValidElement<{ className?: unknown }>(children)) return undefined;
  const className = children.props.className;
  return typeof className === "string" ? /\blanguage-([\w+#.-]+)/.exec(className)?.[1] : undefined;
}

/** A fenced code block: its language label and a Copy button above the code. */
export function CodeBlock({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLPreElement>(null);
  const { copied, copy, error } = useCopy();
  const language = languageOf(children);
  return (
    <div className="my-3 overflow-hidden rounded-lg bg-zinc-900" data-testid="code-block">
      <div className="flex items-center gap-2 border-b border-zinc-800 px-3.5 py-1 text-[11px] text-zinc-400">
        <span data-testid="code-language" className="font-mono">
          {language ?? "text"}
        </span>
        {error ? <span role="alert" className="text-red-300">{error}</span> : null}
        <button
          type="button"
          data-testid="copy-code"
          onClick={() => copy(ref.current?.textContent ?? "")}
          className="ml-auto rounded px-1.5 py-0.5 hover:bg-zinc-800 hover:text-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-400"
        >
          {copied ? "Copied" : `Copy${language ? ` ${language}` : ""}`}
        </button>
      </div>
      <pre
        ref={ref}
        className="overflow-x-auto p-3.5 text-[13px] leading-relaxed text-zinc-100 [&_code]:bg-transparent [&_code]:p-0 [&_code]:text-inherit"
      >
        {children}
      </pre>
    </div>
  );
}
