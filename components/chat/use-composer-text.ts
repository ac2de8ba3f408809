"use client";

import { useLayoutEffect, useRef, useState } from "react";

/** The message box's text and caret; `edit` sets both and puts the focus and caret there after the render. */
export function useComposerText() {
  const box = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useState("");
  const [caret, setCaret] = useState(0);
  // Where to put the caret after the next render (a mention inserted, a prompt offered).
  const nextCaret = useRef<number | undefined>(undefined);
  const edit = (value: string, at: number = value.length) => {
    setText(value);
    setCaret(at);
    nextCaret.current = at;
  };
  useLayoutEffect(() => {
    const at = nextCaret.current;
    if (at === undefined || !box.current) return;
    nextCaret.current = undefined;
    box.current.focus();
    box.current.setSelectionRange(at, at);
  });
  return { box, text, caret, setText, setCaret, edit };
}
