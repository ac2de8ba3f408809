import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Bus, type Envelope, define, is, lookup } from "./bus";

const Ping = define("test.ping", z.object({ n: z.number() }));

describe("Bus", () => {
  afterEach(() => vi.restoreAllMocks());

  it("delivers to subscribers of the event's team and session only, in publish order", () => {
    const bus = new Bus();
    const team: Envelope[] = [];
    const session: Envelope[] = [];
    const other: Envelope[] = [];
    bus.subscribe({ teamId: "t1" }, (e) => team.push(e));
    bus.subscribe({ teamId: "t1", sessionId: "s1" }, (e) => session.push(e));
    bus.subscribe({ teamId: "t2" }, (e) => other.push(e));
    bus.publish(Ping, { n: 1 }, { teamId: "t1", sessionId: "s1" });
    bus.publish(Ping, { n: 2 }, { teamId: "t1", sessionId: "s2" });
    bus.publish(Ping, { n: 3 }, { teamId: "t1" });
    bus.publish(Ping, { n: 4 }, { teamId: "t1", sessionId: "s1" });
    expect(team.map((e) => (e.payload as { n: number }).n)).toEqual([1, 2, 3, 4]);
    expect(session.map((e) => (e.payload as { n: number }).n)).toEqual([1, 4]);
    expect(other).toEqual([]);
    expect(new Set(team.map((e) => e.id)).size).toBe(4);
  });

  it("validates payloads, unsubscribes, and isolates a throwing subscriber", () => {
    const bus = new Bus();
    const seen: number[] = [];
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    bus.subscribe({ teamId: "t" }, () => {
      throw new Error("boom");
    });
    const stop = bus.subscribe({ teamId: "t" }, (e) => {
      if (is(e, Ping)) seen.push(e.payload.n);
    });
    expect(bus.subscriberCount).toBe(2);
    expect(() => bus.publish(Ping, { n: "x" } as never, { teamId: "t" })).toThrow();
    bus.publish(Ping, { n: 1 }, { teamId: "t" });
    expect(seen).toEqual([1]);
    expect(error).toHaveBeenCalledTimes(1);
    stop();
    expect(bus.subscriberCount).toBe(1);
    bus.publish(Ping, { n: 2 }, { teamId: "t" });
    expect(seen).toEqual([1]);
  });

  it("forwards local publishes, not delivered events, and keeps one definition per name", () => {
    const bus = new Bus();
    const forwarded: string[] = [];
    const unhook = bus.onPublish((e) => forwarded.push(e.name));
    bus.publish(Ping, { n: 1 }, { teamId: "t" });
    bus.deliver({ id: "x", name: "test.ping", payload: { n: 2 }, scope: { teamId: "t" }, time: 0 });
    unhook();
    bus.publish(Ping, { n: 3 }, { teamId: "t" });
    expect(forwarded).toEqual(["test.ping"]);
    expect(define("test.ping", z.object({ other: z.string() }))).toBe(Ping);
    expect(lookup("test.ping")).toBe(Ping);
    expect(lookup("test.nothing")).toBeUndefined();
  });
});
