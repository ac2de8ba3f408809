import { describe, expect, it } from "vitest";
import { type Timers, refreshSchedule } from "./refresh-schedule";

/** Timers on a clock the test moves. */
function fakeTimers() {
  let now = 0;
  let timers: Array<{ at: number; run: () => void; id: number }> = [];
  let ids = 0;
  const api: Timers = {
    now: () => now,
    delay(run, ms) {
      const id = ++ids;
      timers.push({ at: now + ms, run, id });
      return () => {
        timers = timers.filter((t) => t.id !== id);
      };
    },
  };
  const advance = (to: number) => {
    for (;;) {
      const next = timers.filter((t) => t.at <= to).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!next) break;
      timers = timers.filter((t) => t !== next);
      now = next.at;
      next.run();
    }
    now = to;
  };
  return { api, advance };
}

describe("a share page's renders (refreshSchedule)", () => {
  it("renders at once after a quiet moment, at most every `every` ms while events come, and once more `settle` ms after the last event", () => {
    const { api, advance } = fakeTimers();
    const renders: number[] = [];
    const schedule = refreshSchedule(() => renders.push(api.now()), { every: 400, settle: 300 }, api);
    schedule.event();
    advance(0);
    expect(renders).toEqual([0]);
    // A burst: throttled to one render 400 ms after the first.
    advance(50);
    schedule.event();
    advance(120);
    schedule.event();
    advance(400);
    expect(renders).toEqual([0, 400]);
    // The last event was at 120: a render at or after 120 + 300, once.
    advance(2_000);
    expect(renders).toEqual([0, 400, 800]);
  });

  it("a single event (say, a call now waiting for approval, stored up to 250 ms later) is rendered at once and again when it has settled", () => {
    const { api, advance } = fakeTimers();
    const renders: number[] = [];
    const schedule = refreshSchedule(() => renders.push(api.now()), { every: 400, settle: 300 }, api);
    advance(5_000);
    schedule.event();
    advance(10_000);
    expect(renders).toEqual([5_000, 5_400]);
    expect(renders[1]! - 5_000).toBeGreaterThanOrEqual(250);
  });

  it("renders nothing after stop", () => {
    const { api, advance } = fakeTimers();
    const renders: number[] = [];
    const schedule = refreshSchedule(() => renders.push(api.now()), { every: 400, settle: 300 }, api);
    schedule.event();
    schedule.stop();
    schedule.event();
    advance(5_000);
    expect(renders).toEqual([]);
  });
});
