import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Envelope } from "@/server/bus/bus";
import { type EventSourceHandlers, subscribe } from "./use-event-source";

/** The browser's EventSource, reduced to what the shared connection uses. */
class FakeEventSource {
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
  emit(event: Envelope): void {
    this.onmessage?.({ data: JSON.stringify(event) } as MessageEvent<string>);
  }
}

const envelope = (id: string, name = "session.updated"): Envelope => ({ id, name, payload: {}, scope: { teamId: "tem_1" }, time: 0 });

function handlers(onEvent: (event: Envelope) => void): { current: EventSourceHandlers } {
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
});
