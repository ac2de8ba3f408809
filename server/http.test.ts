import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Bus, type Envelope, define } from "./bus/bus";
import { ParleyError } from "./errors";

// A short heartbeat, read when the module loads.
process.env.PARLEY_SSE_HEARTBEAT_MS = "20";
const { MAX_PENDING_BYTES, errorResponse, restartStreams, sseResponse } = await import("./http");

async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, needle: string): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(needle)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  return text;
}

describe("errorResponse", () => {
  afterEach(() => vi.restoreAllMocks());

  it("maps domain error codes to HTTP statuses with the message", async () => {
    const cases: [ParleyError, number][] = [
      [ParleyError.notFound("session", "ses_x"), 404],
      [ParleyError.invalid("bad"), 400],
      [new ParleyError("FORBIDDEN", "no"), 403],
      [new ParleyError("UNAUTHORIZED", "who"), 401],
      [new ParleyError("BUSY", "busy"), 409],
      [new ParleyError("CONFLICT", "conflict"), 409],
      [new ParleyError("CORRUPT", "Part row prt_1 is corrupt"), 500],
    ];
    for (const [error, status] of cases) {
      const res = errorResponse(error);
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ error: { code: error.code, message: error.message } });
    }
  });

  it("answers any other error with 500 without its message, and logs it", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = errorResponse(new Error("password=hunter2"));
    expect(res.status).toBe(500);
    expect(JSON.stringify(await res.json())).not.toContain("hunter2");
    expect(log).toHaveBeenCalled();
  });
});

describe("sseResponse", () => {
  // The events these streams carry, declared for a client audience as every streamed event is.
  define("test.n", z.object({ n: z.number() }), { audience: ["member"] });
  const event = (n: number): Envelope => ({ id: `e${n}`, name: "test.n", payload: { n }, scope: { teamId: "t" }, time: n });

  it("writes the events published in one synchronous run as one chunk", async () => {
    const bus = new Bus();
    const res = sseResponse(new AbortController().signal, { subscribe: (send) => bus.subscribe({ teamId: "t" }, send) });
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");
    await readUntil(reader, ": connected");
    for (let n = 1; n <= 3; n++) bus.publish({ name: "test.n", schema: z.object({ n: z.number() }), audience: new Set(["member" as const]) }, { n }, { teamId: "t" });
    const chunk = await reader.read();
    const text = new TextDecoder().decode(chunk.value);
    expect(text.match(/^data: /gm)).toHaveLength(3);
    expect(text.indexOf('"n":1')).toBeLessThan(text.indexOf('"n":3'));
    await reader.cancel();
  });

  it("sends the initial events, then live ones and heartbeats; cancel unsubscribes", async () => {
    const bus = new Bus();
    const res = sseResponse(new AbortController().signal, {
      initial: async () => [event(1)],
      subscribe: (send) => bus.subscribe({ teamId: "t" }, send),
    });
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(bus.subscriberCount).toBe(1);
    const reader = res.body!.getReader();
    bus.deliver(event(2));
    const text = await readUntil(reader, ": ping");
    expect(text.startsWith("retry: 1000\n")).toBe(true);
    const data = [...text.matchAll(/^id: (.+)\ndata: (.+)$/gm)].map((m) => [m[1], JSON.parse(m[2]!)]);
    expect(data).toEqual([
      ["e1", event(1)],
      ["e2", event(2)],
    ]);
    await reader.cancel();
    expect(bus.subscriberCount).toBe(0);
  });

  it("closes and unsubscribes on abort, and never subscribes for an already aborted request", async () => {
    const bus = new Bus();
    const abort = new AbortController();
    const res = sseResponse(abort.signal, { subscribe: (send) => bus.subscribe({ teamId: "t" }, send) });
    const reader = res.body!.getReader();
    await readUntil(reader, "connected");
    abort.abort();
    expect(bus.subscriberCount).toBe(0);
    expect((await reader.read()).done).toBe(true);

    const gone = new AbortController();
    gone.abort();
    const subscribe = vi.fn(() => () => {});
    const late = sseResponse(gone.signal, { subscribe });
    expect((await late.body!.getReader().read()).done).toBe(true);
    expect(subscribe).not.toHaveBeenCalled();
  });

  async function readAll(res: Response): Promise<string> {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
    return text;
  }
  const ids = (text: string) => [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);

  it("ends the stream when the source asks, after what it sent, and unsubscribes", async () => {
    const bus = new Bus();
    let end = () => {};
    const res = sseResponse(new AbortController().signal, {
      subscribe: (send, stop) => {
        end = stop;
        return bus.subscribe({ teamId: "t" }, send);
      },
    });
    const all = readAll(res);
    bus.deliver(event(1));
    bus.deliver(event(2));
    end();
    bus.deliver(event(3));
    expect(ids(await all)).toEqual(["e1", "e2"]);
    expect(bus.subscriberCount).toBe(0);
  });

  it("restartStreams ends every open stream after what it was sent; closed streams are forgotten", async () => {
    const bus = new Bus();
    const source = { subscribe: (send: (e: Envelope) => void) => bus.subscribe({ teamId: "t" }, send) };
    const gone = new AbortController();
    sseResponse(gone.signal, source);
    gone.abort();
    const first = readAll(sseResponse(new AbortController().signal, source));
    const second = readAll(sseResponse(new AbortController().signal, source));
    bus.deliver(event(1));
    expect(restartStreams()).toBe(2);
    bus.deliver(event(2));
    expect(ids(await first)).toEqual(["e1"]);
    expect(ids(await second)).toEqual(["e1"]);
    expect(bus.subscriberCount).toBe(0);
    expect(restartStreams()).toBe(0);
  });

  it("drops a client that stops reading once it is MAX_PENDING_BYTES behind, and says so once; one that reads keeps its stream", async () => {
    const bus = new Bus();
    const closed = vi.fn();
    const big = (n: number): Envelope => ({ ...event(n), payload: { n, pad: "x".repeat(64 * 1024) } });
    const slow = sseResponse(new AbortController().signal, { subscribe: (send) => bus.subscribe({ teamId: "t" }, send), closed });
    const reading = sseResponse(new AbortController().signal, { subscribe: (send) => bus.subscribe({ teamId: "t" }, send) });
    const read = readAll(reading);
    // One write per macrotask, as events of separate moments arrive: the slow client takes none.
    const events = Math.ceil((2 * MAX_PENDING_BYTES) / (64 * 1024));
    for (let n = 1; n <= events; n++) {
      bus.deliver(big(n));
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    expect(bus.subscriberCount).toBe(1);
    expect(closed).toHaveBeenCalledOnce();
    await expect(slow.body!.getReader().read()).rejects.toMatchObject({ name: "AbortError" });
    restartStreams();
    expect(ids(await read)).toHaveLength(events);
  });

  it("an end asked for while the initial events are read waits for them and for the live ones held meanwhile", async () => {
    const bus = new Bus();
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let end = () => {};
    const res = sseResponse(new AbortController().signal, {
      subscribe: (send, stop) => {
        end = stop;
        return bus.subscribe({ teamId: "t" }, send);
      },
      initial: async () => {
        await gate;
        return [event(1)];
      },
    });
    const all = readAll(res);
    bus.deliver(event(2));
    end();
    release();
    expect(ids(await all)).toEqual(["e1", "e2"]);
    expect(bus.subscriberCount).toBe(0);
  });
});
