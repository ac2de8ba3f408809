"use client";

import { useEffect, useState } from "react";
import { formatDateTime, formatRelative } from "./format";

/** "3 minutes ago", refreshed every half minute; the exact time is in the tooltip. */
export function RelativeTime({ time, className }: { time: number; className?: string }) {
  const now = useNow(30_000);
  return (
    <time dateTime={new Date(time).toISOString()} title={formatDateTime(time)} className={className} suppressHydrationWarning>
      {now === undefined ? formatDateTime(time) : formatRelative(time, now)}
    </time>
  );
}

/** The current time, undefined until mounted (so server and client render the same first frame). */
function useNow(intervalMs: number): number | undefined {
  const [now, setNow] = useState<number>();
  useEffect(() => {
    const tick = () => setNow(Date.now());
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, intervalMs);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [intervalMs]);
  return now;
}
