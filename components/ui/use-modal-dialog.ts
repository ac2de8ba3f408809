"use client";

import { useEffect, useId, useRef } from "react";

/**
 * A native modal <dialog> driven by React state: shown with showModal() (focus kept inside,
 * Escape cancels) while `open`, closed otherwise. Returns the ref for the <dialog> and an id
 * for its title (aria-labelledby).
 */
export function useModalDialog(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return { ref, titleId };
}
