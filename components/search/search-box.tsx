"use client";

import { useEffect, useRef } from "react";
import { takeDeferredShortcut } from "@/components/ui/deferred-shortcut";

/**
 * The search field of the session list, the dashboard and (later) the sidebar: a
 * controlled input with its icon; what it searches is said by `label`.
 */
export function SearchBox({
  value,
  onChange,
  label = "Search sessions",
  placeholder = "Search titles, messages, tool output and files",
  className = "",
}: {
  value: string;
  onChange: (value: string) => void;
  label?: string;
  placeholder?: string;
  className?: string;
}) {
  const input = useRef<HTMLInputElement>(null);
  // Ctrl/⌘+K pressed on a page without a search box led here: the search is this one.
  useEffect(() => {
    if (takeDeferredShortcut("search")) input.current?.focus();
  }, []);
  return (
    <div className={`relative ${className}`}>
      <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-zinc-400">
        <path fillRule="evenodd" d="M9 3.5a5.5 5.5 0 1 0 3.4 9.83l3.13 3.14a.75.75 0 1 0 1.06-1.06l-3.13-3.14A5.5 5.5 0 0 0 9 3.5zM5 9a4 4 0 1 1 8 0 4 4 0 0 1-8 0z" clipRule="evenodd" />
      </svg>
      <input
        ref={input}
        type="search"
        aria-keyshortcuts="Control+K Meta+K"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        placeholder={placeholder}
        aria-label={label}
        data-testid="search-box"
        className="h-9 w-full rounded-lg border-0 bg-white pr-3 pl-9 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-500 focus:ring-2 focus:ring-indigo-600 focus:outline-none"
      />
    </div>
  );
}
