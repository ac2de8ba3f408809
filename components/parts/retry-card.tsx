"use client";

import { useEffect, useState } from "react";
import { formatDateTime } from "@/components/ui/format";
import type { RetryOutcome, RetryPart } from "@/lib/retry-parts";
import { Icon } from "./icons";

/**
 * One card for a retried model call, however many attempts failed: the latest failed
 * attempt out of how many are allowed, when the next one starts (counting down while the
 * reply waits) or how it ended, and the last error; earlier attempts on request.
 */
export function RetryCard({ retries, outcome }: { retries: RetryPart[]; outcome: RetryOutcome | undefined }) {
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
        <p className="font-medium text-amber-900">
          <span data-testid="retry-attempt">
            Attempt {last.attempt}
            {last.max ? ` of ${last.max}` : ""} failed
          </span>
          {error.statusCode ? <span className="font-normal text-amber-800"> · HTTP {error.statusCode}</span> : null}
          <span className="font-normal text-amber-800"> · {formatDateTime(last.time.created)}</span>
        </p>
        <p data-testid="retry-next" className="text-amber-900">
          <NextAttempt last={last} outcome={outcome} />
        </p>
        <p data-testid="retry-error" className="mt-0.5 break-words text-amber-800">
          {error.message}
        </p>
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

function NextAttempt({ last, outcome }: { last: RetryPart; outcome: RetryOutcome | undefined }) {
  const next = last.attempt + 1;
  const of = last.max ? ` of ${last.max}` : "";
  switch (outcome) {
    case "recovered":
      return <>Attempt {next} went through.</>;
    case "failed":
      return <>The reply failed after {next} attempts.</>;
    case "stopped":
      return <>Stopped while retrying.</>;
    case "retrying":
      return last.time.next === undefined ? <>Retrying…</> : <Countdown next={last.time.next} label={`attempt ${next}${of}`} />;
    case undefined:
      return null;
  }
}

/** Whole seconds until `next`, counted down in the browser (nothing is shown before the first tick, so server and browser render alike). */
function Countdown({ next, label }: { next: number; label: string }) {
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
  if (now === undefined) return <>Next try: {label}</>;
  const seconds = Math.max(0, Math.ceil((next - now) / 1000));
  return seconds > 0 ? (
    <>
      Next try ({label}) in <span className="tabular-nums">{seconds} s</span>
    </>
  ) : (
    <>Trying again: {label}…</>
  );
}
