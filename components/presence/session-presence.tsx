"use client";

import { initials, typingLine } from "./viewers";
import { usePresenceBeat } from "./use-presence-beat";
import { useSessionViewers } from "./use-session-viewers";

/** Avatar colours, picked by user id so a member keeps theirs. */
const TONES = ["bg-indigo-100 text-indigo-800", "bg-emerald-100 text-emerald-800", "bg-amber-100 text-amber-900", "bg-sky-100 text-sky-800", "bg-rose-100 text-rose-800", "bg-violet-100 text-violet-800"];

function tone(id: string): string {
  let hash = 0;
  for (const char of id) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return TONES[hash % TONES.length] ?? "";
}

/**
 * Presence in a session's header (issue 33, point 9): this tab says it is here (and when
 * its member types), and the other members who have the session open now are shown as
 * avatars, with who of them is typing a prompt. Nothing is shown while nobody else is.
 */
export function SessionPresence({ sessionId, viewerId }: { sessionId: string; viewerId: string | undefined }) {
  usePresenceBeat(sessionId);
  const viewers = useSessionViewers(sessionId, viewerId);
  if (viewers.length === 0) return null;
  const typing = typingLine(viewers);
  return (
    <div data-testid="presence" className="flex min-w-0 items-center gap-2 text-xs text-zinc-600">
      <ul aria-label="Also here now" className="flex -space-x-1.5">
        {viewers.map((viewer) => (
          <li
            key={viewer.id}
            data-testid="presence-viewer"
            data-user-id={viewer.id}
            data-typing={viewer.typing || undefined}
            title={`${viewer.name}${viewer.typing ? " is typing" : " is here"}`}
            className={`grid size-6 place-items-center rounded-full text-[0.65rem] font-semibold ring-2 ring-white ${tone(viewer.id)} ${viewer.typing ? "animate-pulse" : ""}`}
          >
            <span aria-hidden="true">{initials(viewer.name)}</span>
            <span className="sr-only">
              {viewer.name}
              {viewer.typing ? " (typing)" : ""}
            </span>
          </li>
        ))}
      </ul>
      <span aria-live="polite" data-testid="presence-typing" className="truncate">
        {typing}
      </span>
    </div>
  );
}
