import { describe, expect, it } from "vitest";
import { type Scheduler, throttledSubscribe } from "./throttle";

/** A hand-driven clock: frames every 16 ms, delays at their time. */
function fakeScheduler() {
  let time = 0;
  let frames: Array<() => void> = [];
  let delays: Array<{ at: number; callback: () => void }> = [];
  const scheduler: Scheduler = {
    now: () => time,
    frame(callback) {
      frames.push(callback);
      return () => {
        frames = frames.filter((f) => f !== callback);
      };
    },
    delay(callback, ms) {
      const entry = { at: time + ms, callback };
      delays.push(entry);
      return () => {
        delays = delays.filter((d) => d !== entry);
      };
    },
  };
  /** Moves the clock on by `ms`, firing delays when due and a frame every 16 ms. */
  const advance = (ms: number) => {
    for (let step = 0; step < ms; step++) {
      time++;
      for (const due of delays.filter((d) => d.at <= time)) {
        delays = delays.filter((d) => d !== due);
        due.callback();
      }
      if (time % 16 === 0) {
        const now = frames;
        frames = [];
        for (const frame of now) frame();
      }
    }
  };
  return { scheduler, advance, pending: () => frames.length + delays.length };
}

function source() {
  const listeners = new Set<() => void>();
  return {
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    change: () => {
      for (const listener of listeners) listener();
    },
    listeners,
  };
}

describe("throttledSubscribe", () => {
  it("renders a change after a quiet moment at the next frame", () => {
    const { scheduler, advance } = fakeScheduler();
    const store = source();
    const renders: number[] = [];
    throttledSubscribe(store.subscribe, 50, scheduler)(() => renders.push(scheduler.now()));
    store.change();
    advance(16);
    expect(renders).toEqual([16]);
  });

  it("renders a stream of changes at most once per interval, and its last change too", () => {
    const { scheduler, advance } = fakeScheduler();
    const store = source();
    const renders: number[] = [];
    throttledSubscribe(store.subscribe, 50, scheduler)(() => renders.push(scheduler.now()));
    // A change every 5 ms for one second: 200 changes.
    for (let i = 0; i < 200; i++) {
      store.change();
      advance(5);
    }
    advance(100);
    expect(renders.length).toBeGreaterThan(12);
    expect(renders.length).toBeLessThanOrEqual(20);
    for (let i = 1; i < renders.length; i++) expect((renders[i] ?? 0) - (renders[i - 1] ?? 0)).toBeGreaterThanOrEqual(50);
    // The last change (at 995 ms) is rendered.
    expect(renders.at(-1)).toBeGreaterThanOrEqual(995);
  });

  it("stops listening and cancels what it scheduled when unsubscribed", () => {
    const { scheduler, advance, pending } = fakeScheduler();
    const store = source();
    const renders: number[] = [];
    const unsubscribe = throttledSubscribe(store.subscribe, 50, scheduler)(() => renders.push(scheduler.now()));
    store.change();
    advance(16);
    store.change();
    expect(pending()).toBe(1);
    unsubscribe();
    expect(pending()).toBe(0);
    expect(store.listeners.size).toBe(0);
    advance(200);
    expect(renders).toEqual([16]);
  });
});
