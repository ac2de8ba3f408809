import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LiveEvent } from "./use-event-source";
import { liveEvent } from "@/test/live-event";
import { type EventSourceHandlers, REVIVE_FIRST_MS, REVIVE_MAX_MS, subscribe } from "./use-event-source";

/** The browser's EventSource, reduced to what the shared connection uses. */
class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static instances: FakeEventSource[] = [];
  readyState = 0;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onmessage: ((message: MessageEvent<string>) => void) | null = null;
  constructor(readonly url: string) {
    FakeEventSource.instances.push(this);
  }
  close(): void {
    this.readyState = FakeEventSource.CLOSED;
  }
  /** The server answered: the stream is open. */
  opened(): void {
    this.readyState = FakeEventSource.OPEN;
    this.onopen?.();
  }
  /** The connection failed: `retrying` as the browser does for a network error, else given up (an error response). */
  failed(retrying: boolean): void {
    this.readyState = retrying ? FakeEventSource.CONNECTING : FakeEventSource.CLOSED;
    this.onerror?.();
  }
  emit(event: LiveEvent): void {
    this.onmessage?.({ data: JSON.stringify(event) } as MessageEvent<string>);
  }
}

const envelope = (id: string, name = "session.updated"): LiveEvent => liveEvent({ id, name, payload: {}, scope: { teamId: "tem_1" } });

function handlers(onEvent: (event: LiveEvent) => void): { current: EventSourceHandlers } {
  return { current: { onEvent } };
}

describe("the shared event stream of a tab", () => {
  beforeEach(() => {
    FakeEventSource.instances = [];
    vi.stubGlobal("EventSource", FakeEventSource);
    vi.spyOn(console, "error").mockImplementation(() => {});
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("opens one connection per URL for every listener, and closes it when the last leaves", () => {
    const a = subscribe("/api/sessions/s1/events", handlers(() => {}));
    const b = subscribe("/api/sessions/s1/events", handlers(() => {}));
    expect(FakeEventSource.instances).toHaveLength(1);
    a();
    expect(FakeEventSource.instances[0]?.readyState).not.toBe(FakeEventSource.CLOSED);
    b();
    expect(FakeEventSource.instances[0]?.readyState).toBe(FakeEventSource.CLOSED);
  });

  it("a listener that throws does not keep the event from the listeners after it", () => {
    const seen: string[] = [];
    const first = subscribe("/api/sessions/s2/events", handlers(() => {
      throw new Error("broken listener");
    }));
    const second = subscribe("/api/sessions/s2/events", handlers((event) => seen.push(event.id)));
    const source = FakeEventSource.instances[0];
    source?.emit(envelope("e1", "permission.asked"));
    source?.emit(envelope("e2"));
    expect(seen).toEqual(["e1", "e2"]);
    expect(console.error).toHaveBeenCalledWith("[events] a listener failed on permission.asked", expect.any(Error));
    first();
    second();
  });

  it("an event replayed with the same id is delivered once", () => {
    const seen: string[] = [];
    const off = subscribe("/api/sessions/s3/events", handlers((event) => seen.push(event.id)));
    const source = FakeEventSource.instances[0];
    source?.emit(envelope("e1"));
    source?.emit(envelope("e1"));
    expect(seen).toEqual(["e1"]);
    off();
  });

  describe("a stream the browser gave up on", () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it("is opened again after a backoff that doubles up to a cap, and listeners hear it reopen", () => {
      const opens: boolean[] = [];
      const off = subscribe("/api/sessions/s4/events", { current: { onEvent: () => {}, onOpen: (reconnect) => opens.push(reconnect) } });
      FakeEventSource.instances[0]?.opened();
      FakeEventSource.instances[0]?.failed(false);
      vi.advanceTimersByTime(REVIVE_FIRST_MS - 1);
      expect(FakeEventSource.instances).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(FakeEventSource.instances).toHaveLength(2);
      // Failing again: twice as long, and so on up to the cap.
      FakeEventSource.instances[1]?.failed(false);
      vi.advanceTimersByTime(REVIVE_FIRST_MS * 2 - 1);
      expect(FakeEventSource.instances).toHaveLength(2);
      vi.advanceTimersByTime(1);
      expect(FakeEventSource.instances).toHaveLength(3);
      for (let i = 0; i < 10; i++) {
        FakeEventSource.instances.at(-1)?.failed(false);
        vi.advanceTimersByTime(REVIVE_MAX_MS);
      }
      expect(FakeEventSource.instances).toHaveLength(13);
      FakeEventSource.instances.at(-1)?.opened();
      expect(opens).toEqual([false, true]);
      // Open again: the next failure starts from the first delay.
      FakeEventSource.instances.at(-1)?.failed(false);
      vi.advanceTimersByTime(REVIVE_FIRST_MS);
      expect(FakeEventSource.instances).toHaveLength(14);
      off();
    });

    it("is left to the browser while it retries by itself, and not revived once nobody listens", () => {
      const off = subscribe("/api/sessions/s5/events", handlers(() => {}));
      FakeEventSource.instances[0]?.failed(true);
      vi.advanceTimersByTime(REVIVE_MAX_MS);
      expect(FakeEventSource.instances).toHaveLength(1);
      FakeEventSource.instances[0]?.failed(false);
      off();
      vi.advanceTimersByTime(REVIVE_MAX_MS);
      expect(FakeEventSource.instances).toHaveLength(1);
    });

    it("is opened again at once for a newcomer, and events of the replaced source are ignored", () => {
      const seen: string[] = [];
      const first = subscribe("/api/sessions/s6/events", handlers((event) => seen.push(event.id)));
      const old = FakeEventSource.instances[0];
      old?.failed(false);
      const second = subscribe("/api/sessions/s6/events", handlers((event) => seen.push(`second:${event.id}`)));
      expect(FakeEventSource.instances).toHaveLength(2);
      vi.advanceTimersByTime(REVIVE_MAX_MS);
      expect(FakeEventSource.instances).toHaveLength(2);
      old?.emit(envelope("stale"));
      FakeEventSource.instances[1]?.emit(envelope("e1"));
      expect(seen).toEqual(["e1", "second:e1"]);
      first();
      second();
    });
  });
});
