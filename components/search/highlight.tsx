import type { Segment } from "@/server/search/snippet";

/**
 * Text with its matches marked. Segments are plain text from the server (never markup):
 * React escapes them, and only this component adds elements (<mark>).
 */
export function Highlight({ segments, className }: { segments: readonly Segment[]; className?: string }) {
  return (
    <span className={className}>
      {segments.map((segment, i) =>
        segment.match ? (
          <mark key={i} className="rounded-sm bg-amber-200 px-0.5 text-zinc-900">
            {segment.text}
          </mark>
        ) : (
          <span key={i}>{segment.text}</span>
        ),
      )}
    </span>
  );
}
