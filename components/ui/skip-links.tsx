"use client";

import { usePathname } from "next/navigation";
import type { MouseEvent } from "react";
import { MESSAGE_BOX_ID } from "./keyboard";

/** The id of the root layout's <main>. */
export const MAIN_ID = "main";

const LINK =
  "fixed top-2 left-2 z-50 -translate-y-16 rounded-lg bg-white px-3 py-2 text-sm font-medium text-indigo-700 shadow-lg ring-1 ring-zinc-200 transition-transform focus:translate-y-0 focus:outline-2 focus:outline-indigo-600";

/** Moves focus (not just the scroll position) to the element, as a keyboard user expects. */
function focusOn(id: string) {
  return (event: MouseEvent<HTMLAnchorElement>) => {
    const target = document.getElementById(id);
    if (!target) return;
    event.preventDefault();
    target.focus();
  };
}

/**
 * The first stops of the Tab order, shown only when focused: to the page's content and, on
 * a session page, straight to the message box (past the header and the conversation).
 */
export function SkipLinks() {
  const pathname = usePathname();
  const session = pathname.startsWith("/sessions/");
  return (
    <div data-testid="skip-links">
      <a href={`#${MAIN_ID}`} onClick={focusOn(MAIN_ID)} className={LINK}>
        Skip to main content
      </a>
      {session ? (
        <a href={`#${MESSAGE_BOX_ID}`} onClick={focusOn(MESSAGE_BOX_ID)} className={LINK}>
          Skip to message box
        </a>
      ) : null}
    </div>
  );
}
