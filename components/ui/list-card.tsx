import type { ReactNode } from "react";

/** A list of rows in a card (the session list, the shared links), dimmed while it still shows the previous results (`dimmed`). */
export function ListCard({ label, testId, dimmed, children }: { label: string; testId: string; dimmed: boolean; children: ReactNode }) {
  return (
    <ul aria-label={label} data-testid={testId} className={`divide-y divide-zinc-100 overflow-hidden rounded-2xl bg-white shadow-sm ring-1 ring-zinc-200 transition-opacity ${dimmed ? "opacity-60" : ""}`}>
      {children}
    </ul>
  );
}

/** The mark before a child session's title in a list row. */
export function ChildMark() {
  return (
    <span title="Child session" className="text-zinc-400" aria-hidden="true">
      ↳
    </span>
  );
}
