/**
 * How often a live view re-renders. A streamed answer changes the store at every delta
 * (60 times a second and more); each render of the chat costs React, style, layout and
 * paint, and one per animation frame keeps the main thread about half busy during a long
 * answer, so that anything else (a garbage collection, another process on the machine)
 * pushes a frame over 50 ms. At most one render per frame and one per RENDER_INTERVAL_MS
 * keeps text arriving smoothly at a fraction of the work (vercel/ai's `experimental_throttle`
 * idea). A change after a quiet moment is shown at the next frame.
 */
export const RENDER_INTERVAL_MS = 50;

/** The clock and the two ways of waiting that the throttle uses; the browser's by default. */
export interface Scheduler {
  now(): number;
  frame(callback: () => void): () => void;
  delay(callback: () => void, ms: number): () => void;
}

const browser: Scheduler = {
  now: () => performance.now(),
  frame(callback) {
    const id = requestAnimationFrame(callback);
    return () => cancelAnimationFrame(id);
  },
  delay(callback, ms) {
    const id = setTimeout(callback, ms);
    return () => clearTimeout(id);
  },
};

/**
 * A `subscribe` for useSyncExternalStore that passes the source's changes on at most once
 * per animation frame and once per `interval` ms: the first change after a quiet moment at
 * the next frame, later ones together, `interval` after the previous render.
 */
export function throttledSubscribe(
  source: (listener: () => void) => () => void,
  interval = RENDER_INTERVAL_MS,
  scheduler: Scheduler = browser,
): (notify: () => void) => () => void {
  return (notify) => {
    let cancel: (() => void) | undefined;
    let last = Number.NEGATIVE_INFINITY;
    const render = () => {
      cancel = scheduler.frame(() => {
        cancel = undefined;
        last = scheduler.now();
        notify();
      });
    };
    const unsubscribe = source(() => {
      if (cancel) return;
      const wait = last + interval - scheduler.now();
      if (wait <= 0) render();
      else cancel = scheduler.delay(render, wait);
    });
    return () => {
      cancel?.();
      unsubscribe();
    };
  };
}
