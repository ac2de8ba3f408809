import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Bus, type Envelope, define, is, lookup, reaches } from "./bus";

const Ping = define("test.ping", z.object({ n: z.number() }), { audience: ["member", "viewer", "team"] });
/** For members and the team stream only (like a permission request). */
const Ask = define("test.ask", z.object({ n: z.number() }), { audience: ["member", "team"] });
/** Server coordination: for no audience. */
const Nudge = define("test.nudge", z.object({ n: z.number() }));

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

  it("sends each event only to the audiences it declares, and server-internal events to no subscriber", () => {
    const bus = new Bus();
    const got = { any: [] as string[], member: [] as string[], viewer: [] as string[], team: [] as string[], system: [] as string[] };
    bus.subscribe({ teamId: "t" }, (e) => got.any.push(e.name));
    bus.subscribe({ teamId: "t", audience: "member" }, (e) => got.member.push(e.name));
    bus.subscribe({ teamId: "t", audience: "viewer" }, (e) => got.viewer.push(e.name));
    bus.subscribe({ teamId: "t", audience: "team" }, (e) => got.team.push(e.name));
    bus.subscribeAll((e) => got.system.push(e.name));
    bus.publish(Ping, { n: 1 }, { teamId: "t" });
    bus.publish(Ask, { n: 2 }, { teamId: "t" });
    bus.publish(Nudge, { n: 3 }, { teamId: "t" });
    bus.deliver({ id: "u", name: "test.undefined", payload: {}, scope: { teamId: "t" }, time: 0 });
    expect(got).toEqual({
      any: ["test.ping", "test.ask"],
      member: ["test.ping", "test.ask"],
      viewer: ["test.ping"],
      team: ["test.ping", "test.ask"],
      system: ["test.ping", "test.ask", "test.nudge", "test.undefined"],
    });
    expect([reaches("test.ping", "viewer"), reaches("test.ask", "viewer"), reaches("test.ask"), reaches("test.nudge"), reaches("test.undefined")]).toEqual([
      true,
      false,
      true,
      false,
      false,
    ]);
    expect([...Ask.audience]).toEqual(["member", "team"]);
    expect(Nudge.audience.size).toBe(0);
  });

  it("subscribers by name get only those events of their team; one by session and name, only those of its session", () => {
    const bus = new Bus();
    const named: string[] = [];
    const both: string[] = [];
    bus.subscribe({ teamId: "t", names: [Ask.name] }, (e) => named.push(`${e.name}:${e.scope.sessionId ?? "-"}`));
    bus.subscribe({ teamId: "t", sessionId: "s1", names: [Ask.name] }, (e) => both.push(`${e.name}:${e.scope.sessionId ?? "-"}`));
    bus.publish(Ping, { n: 1 }, { teamId: "t", sessionId: "s1" });
    bus.publish(Ask, { n: 2 }, { teamId: "t", sessionId: "s1" });
    bus.publish(Ask, { n: 3 }, { teamId: "t", sessionId: "s2" });
    bus.publish(Ask, { n: 4 }, { teamId: "other", sessionId: "s1" });
    expect(named).toEqual(["test.ask:s1", "test.ask:s2"]);
    expect(both).toEqual(["test.ask:s1"]);
  });

  it("a subscription made while an event is delivered gets the next events, not that one again; unsubscribing twice is harmless", () => {
    const bus = new Bus();
    const got: number[] = [];
    const stops: (() => void)[] = [];
    bus.subscribe({ teamId: "t", names: [Ping.name] }, (e) => {
      if (is(e, Ping) && e.payload.n === 1) stops.push(bus.subscribe({ teamId: "t", sessionId: "s" }, (later) => got.push((later.payload as { n: number }).n)));
    });
    bus.publish(Ping, { n: 1 }, { teamId: "t", sessionId: "s" });
    bus.publish(Ping, { n: 2 }, { teamId: "t", sessionId: "s" });
    expect(got).toEqual([2]);
    expect(bus.subscriberCount).toBe(2);
    stops[0]?.();
    stops[0]?.();
    expect(bus.subscriberCount).toBe(1);
    bus.publish(Ping, { n: 3 }, { teamId: "t", sessionId: "s" });
    expect(got).toEqual([2]);
  });
});
