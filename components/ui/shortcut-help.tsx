"use client";

import { useRouter } from "next/navigation";
import { Fragment, useEffect, useState } from "react";
import { Button } from "./button";
import { type DeferredShortcut, deferShortcut } from "./deferred-shortcut";
import { MESSAGE_BOX_ID, SHORTCUTS, globalShortcut } from "./keyboard";
import { useModalDialog } from "./use-modal-dialog";

/** Focuses the page's message box, if it has one; returns whether it did. */
export function focusMessageBox(): boolean {
  const box = document.getElementById(MESSAGE_BOX_ID);
  if (!box) return false;
  box.focus();
  return true;
}

/** Focuses the page's search box, if it has one; returns whether it did. */
function focusSearchBox(): boolean {
  // The first one shown (a sidebar's is in the page but hidden at phone widths).
  const box = [...document.querySelectorAll<HTMLInputElement>('input[type="search"]')].find((input) => input.getClientRects().length > 0);
  if (!box) return false;
  box.focus();
  box.select();
  return true;
}

/** Presses the page's "New session", if it has one that can be pressed; returns whether it did. */
function pressNewSession(): boolean {
  const button = document.querySelector<HTMLButtonElement>('[data-testid="new-session"]');
  if (!button || button.disabled) return false;
  button.click();
  return true;
}

/**
 * The app-wide shortcuts ("/" focuses the message box, "?" opens this help, Ctrl/⌘+K
 * searches, Ctrl/⌘+Shift+O starts a new session: on a page without a search box or a "New
 * session" button, on the session list) and the help itself, a modal <dialog> listing
 * every shortcut (keyboard.ts SHORTCUTS). Rendered once, in the root layout.
 */
export function KeyboardShortcuts() {
  const [open, setOpen] = useState(false);
  const { ref, titleId } = useModalDialog(open);
  const router = useRouter();

  useEffect(() => {
    const elsewhere = (name: DeferredShortcut) => {
      deferShortcut(name);
      router.push("/");
    };
    const onKeyDown = (event: KeyboardEvent) => {
      const shortcut = globalShortcut(event, event.target instanceof Element ? event.target : null);
      if (shortcut === "search" || shortcut === "new-session") {
        // Taken from the browser (its own Ctrl+K, Ctrl+Shift+O) wherever it is done.
        event.preventDefault();
        if (shortcut === "search" ? !focusSearchBox() : !pressNewSession()) elsewhere(shortcut);
      } else if (shortcut === "show-help") {
        event.preventDefault();
        setOpen(true);
      } else if (shortcut === "focus-message-box" && focusMessageBox()) {
        // Taken before the key types "/" into the box it focused.
        event.preventDefault();
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [router]);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onClose={() => setOpen(false)}
      onClick={(event) => {
        if (event.target === ref.current) setOpen(false);
      }}
      data-testid="shortcut-help"
      className="m-auto w-[min(26rem,calc(100vw-2rem))] rounded-2xl bg-white p-0 text-zinc-900 shadow-2xl ring-1 ring-zinc-900/10 backdrop:bg-zinc-900/40 backdrop:backdrop-blur-sm"
    >
      {open ? (
        <div className="p-6">
          <h2 id={titleId} className="text-base font-semibold text-zinc-900">
            Keyboard shortcuts
          </h2>
          <dl className="mt-4 space-y-2.5 text-sm">
            {SHORTCUTS.map((shortcut) => (
              <div key={shortcut.description} className="flex items-center justify-between gap-4">
                <dt className="text-zinc-600">{shortcut.description}</dt>
                <dd className="flex shrink-0 items-center gap-1 text-xs text-zinc-500">
                  {shortcut.keys.map((key, index) => (
                    <Fragment key={`${index}:${key}`}>
                      {index > 0 ? <span aria-hidden="true">+</span> : null}
                      <kbd className="rounded-md bg-zinc-100 px-1.5 py-0.5 font-mono font-medium text-zinc-800 ring-1 ring-zinc-300 ring-inset">{key}</kbd>
                    </Fragment>
                  ))}
                </dd>
              </div>
            ))}
          </dl>
          <div className="mt-6 flex justify-end">
            <Button onClick={() => setOpen(false)} autoFocus>
              Close
            </Button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
