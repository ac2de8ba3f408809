"use client";

import { type ReactNode, useState } from "react";
import { useModalDialog } from "./use-modal-dialog";

/**
 * The header's menu at phone and tablet widths: a button that opens a drawer from the right
 * edge (a modal <dialog>: focus stays inside, Escape and a tap outside close it). Its
 * content is only rendered while open, so nothing in it is found twice next to the wide
 * header's own controls. Following a link in it closes it.
 */
export function MobileMenu({ children, className = "" }: { children: ReactNode; className?: string }) {
  const [open, setOpen] = useState(false);
  const { ref, titleId } = useModalDialog(open);

  return (
    <div className={className}>
      <button
        type="button"
        onClick={() => setOpen(true)}
        aria-haspopup="dialog"
        aria-expanded={open}
        data-testid="menu-button"
        className="grid size-9 place-items-center rounded-lg text-zinc-700 hover:bg-zinc-100 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        <span className="sr-only">Menu</span>
        <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className="size-5">
          <path fillRule="evenodd" clipRule="evenodd" d="M2 4.75A.75.75 0 0 1 2.75 4h14.5a.75.75 0 0 1 0 1.5H2.75A.75.75 0 0 1 2 4.75zM2 10a.75.75 0 0 1 .75-.75h14.5a.75.75 0 0 1 0 1.5H2.75A.75.75 0 0 1 2 10zm0 5.25a.75.75 0 0 1 .75-.75h14.5a.75.75 0 0 1 0 1.5H2.75a.75.75 0 0 1-.75-.75z" />
        </svg>
      </button>
      <dialog
        ref={ref}
        aria-labelledby={titleId}
        data-testid="menu-drawer"
        onClose={() => setOpen(false)}
        onClick={(event) => {
          // A tap on the backdrop, or on a link inside (it navigates): close.
          if (event.target === ref.current || (event.target instanceof Element && event.target.closest("a"))) setOpen(false);
        }}
        className="m-0 ml-auto h-dvh max-h-none w-[min(20rem,85vw)] bg-white p-0 text-zinc-900 shadow-2xl backdrop:bg-zinc-900/40"
      >
        {open ? (
          <div className="flex min-h-full flex-col gap-6 p-4">
            <div className="flex items-center justify-between">
              <h2 id={titleId} className="text-sm font-semibold text-zinc-900">
                Menu
              </h2>
              <button
                type="button"
                onClick={() => setOpen(false)}
                className="grid size-9 place-items-center rounded-lg text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
              >
                <span className="sr-only">Close menu</span>
                <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className="size-5">
                  <path d="M6.28 5.22a.75.75 0 0 0-1.06 1.06L8.94 10l-3.72 3.72a.75.75 0 1 0 1.06 1.06L10 11.06l3.72 3.72a.75.75 0 1 0 1.06-1.06L11.06 10l3.72-3.72a.75.75 0 0 0-1.06-1.06L10 8.94 6.28 5.22z" />
                </svg>
              </button>
            </div>
            {children}
          </div>
        ) : null}
      </dialog>
    </div>
  );
}
