/**
 * When a share page is rendered again on the server. The page shows the session as stored;
 * its live stream says that something changed, sometimes before the change is stored (the
 * server writes streamed changes — text, a tool's live progress, a call now waiting for
 * approval — within its batch window, at most MAX_LOSS_MS = 250 ms later). So the first
 * event after a quiet moment renders at once, later ones at most every `every` ms, and one
 * more render follows `settle` ms after the last event, when what it announced is stored:
 * a page never stays on a state older than its last event.
 */

/** The clock and the timer the schedule uses; the browser's by default. */
export interface Timers {
  now(): number;
  delay(callback: () => void, ms: number): () => void;
}

const browser: Timers = {
  now: () => Date.now(),
  delay(callback, ms) {
    const id = setTimeout(callback, ms);
    return () => clearTimeout(id);
  },
};

export interface RefreshSchedule {
  /** Something happened: render again (now, or at the throttle's next turn), and once more when it has settled. */
  event(): void;
  /** No more renders. */
  stop(): void;
}

export function refreshSchedule(refresh: () => void, options: { every: number; settle: number }, timers: Timers = browser): RefreshSchedule {
  let last = Number.NEGATIVE_INFINITY;
  let pending: (() => void) | undefined;
  let settling: (() => void) | undefined;
  let stopped = false;
  const render = () => {
    if (pending || stopped) return;
    pending = timers.delay(
      () => {
        pending = undefined;
        if (stopped) return;
        last = timers.now();
        refresh();
      },
      Math.max(0, last + options.every - timers.now()),
    );
  };
  return {
    event() {
      if (stopped) return;
      render();
      settling?.();
      settling = timers.delay(() => {
        settling = undefined;
        render();
      }, options.settle);
    },
    stop() {
      stopped = true;
      pending?.();
      settling?.();
    },
  };
}
