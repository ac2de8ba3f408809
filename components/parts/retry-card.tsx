"use client";

import { type ReactNode, useEffect, useState } from "react";
import { formatDateTime } from "@/components/ui/format";
import type { RetryOutcome, RetryPart } from "@/lib/retry-parts";
import { Icon } from "./icons";

/**
 * One card for a retried model call, however many attempts failed — the one notice of it,
 * shown as soon as the first attempt fails: the latest failed attempt out of how many are
 * allowed, its error, when the next one starts (counting down while the reply waits, with
 * `actions` — Retry now / Stop retrying in a member's chat) or how it ended; earlier
 * attempts on request.
 */
export function RetryCard({ retries, outcome, actions }: { retries: RetryPart[]; outcome: RetryOutcome | undefined; actions?: ReactNode }) {
  const last = retries[retries.length - 1];
  if (!last) return null;
  const { error } = last;
  const earlier = retries.slice(0, -1);
  return (
    <div
      data-testid="retry-card"
      data-attempt={last.attempt}
      data-outcome={outcome}
      className="flex gap-2.5 rounded-xl border border-amber-200 bg-amber-50 px-3.5 py-2.5 text-sm"
    >
      <Icon name="retry" className="mt-0.5 size-4 text-amber-600" />
      <div className="min-w-0 flex-1">
        {/* Said once when an attempt fails (not the countdown, which changes every second). */}
        <div role="status" aria-atomic="true">
          <p className="font-medium text-amber-900">
            <span data-testid="retry-attempt">
              Attempt {last.attempt}
              {last.max ? ` of ${last.max}` : ""} failed
            </span>
            {error.statusCode ? <span className="font-normal text-amber-800"> · HTTP {error.statusCode}</span> : null}
            <span className="font-normal text-amber-800"> · {formatDateTime(last.time.created)}</span>
          </p>
          <p data-testid="retry-error" className="mt-0.5 break-words text-amber-800">
            {error.message}
          </p>
        </div>
        {outcome === "retrying" && last.time.next !== undefined ? (
          <Waiting next={last.time.next} label={nextLabel(last)} actions={actions} />
        ) : (
          <p data-testid="retry-next" className="mt-0.5 text-amber-900">
            <NextAttempt last={last} outcome={outcome} />
          </p>
        )}
        {earlier.length > 0 ? (
          <details className="mt-1.5">
            <summary className="cursor-pointer text-xs font-medium text-amber-800 select-none hover:text-amber-950">
              {earlier.length} earlier {earlier.length === 1 ? "attempt" : "attempts"}
            </summary>
            <ol className="mt-1 space-y-0.5 text-xs text-amber-900" data-testid="retry-earlier">
              {earlier.map((retry) => (
                <li key={retry.id}>
                  Attempt {retry.attempt}
                  {retry.error.statusCode ? ` · HTTP ${retry.error.statusCode}` : ""} · {formatDateTime(retry.time.created)}: {retry.error.message}
                </li>
              ))}
            </ol>
          </details>
        ) : null}
      </div>
    </div>
  );
}

/** "attempt 2 of 8": the attempt that comes next. */
function nextLabel(last: RetryPart): string {
  return `attempt ${last.attempt + 1}${last.max ? ` of ${last.max}` : ""}`;
}

function NextAttempt({ last, outcome }: { last: RetryPart; outcome: RetryOutcome | undefined }) {
  const next = last.attempt + 1;
  // A member's "Stop retrying": no next attempt was made.
  if (last.time.stopped !== undefined && outcome !== "stopped") return <>Retrying was stopped after {last.attempt === 1 ? "1 attempt" : `${last.attempt} attempts`}.</>;
  switch (outcome) {
    case "recovered":
      return <>Attempt {next} went through.</>;
    case "failed":
      return <>The reply failed after {next} attempts.</>;
    case "stopped":
      return <>Stopped while retrying.</>;
    case "retrying":
      return <>Retrying ({nextLabel(last)})…</>;
    case undefined:
      return null;
  }
}

/** Whole seconds left until `next` (rounded up, never negative). */
export function secondsUntil(next: number, now: number): number {
  return Math.max(0, Math.ceil((next - now) / 1000));
}

/**
 * While the reply waits for its next attempt: whole seconds until `next`, counted down in
 * the browser (nothing is counted before the first tick, so server and browser render
 * alike), and the actions while there is still a wait to act on.
 */
function Waiting({ next, label, actions }: { next: number; label: string; actions: ReactNode }) {
  const [now, setNow] = useState<number | undefined>(undefined);
  useEffect(() => {
    const tick = () => setNow(Date.now());
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, 250);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, []);
  const seconds = now === undefined ? undefined : secondsUntil(next, now);
  return (
    <>
      <p data-testid="retry-next" className="mt-0.5 text-amber-900">
        {seconds === undefined ? (
          <>Retrying ({label})…</>
        ) : seconds > 0 ? (
          <>
            Retrying in <span className="tabular-nums">{seconds} s</span> ({label})
          </>
        ) : (
          <>Retrying now ({label})…</>
        )}
      </p>
      {seconds !== undefined && seconds > 0 ? actions : null}
    </>
  );
}
