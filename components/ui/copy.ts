"use client";

import { useEffect, useRef, useState } from "react";

/** Copy text to the clipboard: `copied` is true for a moment after, `error` says why it failed. */
export function useCopy(): { copied: boolean; copy: (text: string) => void; error: string | undefined } {
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<string>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = (text: string) => {
    navigator.clipboard.writeText(text).then(
      () => {
        setError(undefined);
        setCopied(true);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => setCopied(false), 1500);
      },
      (reason: unknown) => setError(`Could not copy: ${reason instanceof Error ? reason.message : String(reason)}`),
    );
  };
  return { copied, copy, error };
}
