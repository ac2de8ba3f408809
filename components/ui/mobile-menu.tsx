"use client";

import { type ReactNode, useState } from "react";
import { Drawer } from "./drawer";

/**
 * The header's menu at phone and tablet widths: a button that opens a drawer from the right
 * edge (drawer.tsx).
 */
export function MobileMenu({ children, className = "" }: { children: ReactNode; className?: string }) {
  const [open, setOpen] = useState(false);

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
      <Drawer open={open} onClose={() => setOpen(false)} side="right" testId="menu-drawer">
        {(titleId) => (
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
        )}
      </Drawer>
    </div>
  );
}
