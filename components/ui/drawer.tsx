"use client";

import type { ReactNode } from "react";
import { useModalDialog } from "./use-modal-dialog";

/**
 * A drawer from the left or right edge, for phone and tablet widths: a modal <dialog>
 * (focus stays inside, Escape and a tap outside close it) whose content is rendered only
 * while open — given the id of its title — so nothing in it is found twice next to the wide
 * layout's own controls. Following a link in it closes it.
 */
export function Drawer({ open, onClose, side, testId, children }: { open: boolean; onClose: () => void; side: "left" | "right"; testId: string; children: (titleId: string) => ReactNode }) {
  const { ref, titleId } = useModalDialog(open);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid={testId}
      onClose={onClose}
      onClick={(event) => {
        // A tap on the backdrop, or on a link inside (it navigates): close.
        if (event.target === ref.current || (event.target instanceof Element && event.target.closest("a"))) onClose();
      }}
      className={`m-0 ${side === "left" ? "mr-auto" : "ml-auto"} h-dvh max-h-none w-[min(20rem,85vw)] bg-white p-0 text-zinc-900 shadow-2xl backdrop:bg-zinc-900/40`}
    >
      {open ? children(titleId) : null}
    </dialog>
  );
}
