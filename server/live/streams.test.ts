import { describe, expect, it } from "vitest";
import { PEER_HEADER, trustedProxies } from "../auth/client-address";
import { Bus } from "../bus/bus";
import type { ParleyError } from "../errors";
import type { Part } from "../session/message";
import { Synced } from "../session/runner";
import { LiveStreams } from "./streams";
// What the launcher preloads: PEER_HEADER is this process's own, so it is believed.
import "../../scripts/peer-address.mjs";


const from = (address?: string) => new Headers(address ? { [PEER_HEADER]: address } : {});

function tooMany(open: () => unknown): ParleyError {
  try {
    open();
  } catch (error) {
    return error as ParleyError;
  }
  throw new Error("the stream was admitted");
}

describe("LiveStreams", () => {
  const limits = { perUser: 2, perAddress: 3, perShare: 2, perAddressPerShare: 2 };

  it("caps open streams per user, per address and per share link; a release makes room, once", () => {
    const streams = new LiveStreams(new Bus(), limits, trustedProxies([]));
    const first = streams.admit({ headers: from("10.0.0.1"), userId: "ann" });
    streams.admit({ headers: from("10.0.0.2"), userId: "ann" });
    expect(tooMany(() => streams.admit({ headers: from("10.0.0.3"), userId: "ann" }))).toMatchObject({ code: "TOO_MANY", message: expect.stringContaining("your account") });
    first();
    first();
    expect(streams.count("user:ann")).toBe(1);
    streams.admit({ headers: from("10.0.0.3"), userId: "ann" });
    expect(tooMany(() => streams.admit({ headers: from("10.0.0.4"), userId: "ann" })).code).toBe("TOO_MANY");

    streams.admit({ headers: from("10.0.0.9"), shareId: "shr_1" });
    streams.admit({ headers: from("10.0.0.8"), shareId: "shr_1" });
    expect(tooMany(() => streams.admit({ headers: from("10.0.0.7"), shareId: "shr_1" })).message).toContain("share link");
    streams.admit({ headers: from("10.0.0.9"), shareId: "shr_2" });
    streams.admit({ headers: from("10.0.0.9"), userId: "bob" });
    expect(tooMany(() => streams.admit({ headers: from("10.0.0.9"), shareId: "shr_3" })).message).toContain("your address");
    // A refused stream counts nowhere.
    expect(streams.count("share:shr_3")).toBe(0);
    // Without a known address (no stamped peer), only the user and share caps apply.
    streams.admit({ headers: from(), shareId: "shr_4" });
  });

  it("hands a runner's answer to the stream it is addressed to, and to no other", () => {
    const bus = new Bus();
    const streams = new LiveStreams(bus, limits, trustedProxies([]));
    const got: Record<string, Part[]> = { c1: [], c2: [] };
    const stop1 = streams.onSync("c1", (parts) => got.c1!.push(...parts));
    streams.onSync("c2", (parts) => got.c2!.push(...parts));
    const part: Part = { id: "prt_1", sessionId: "ses_1", messageId: "msg_1", type: "text", text: "hi", time: { start: 1 } };
    bus.deliver({ id: "e1", name: Synced.name, payload: { connection: "c1", parts: [part] }, scope: { teamId: "t", sessionId: "ses_1" }, time: 1 });
    expect(got).toEqual({ c1: [part], c2: [] });
    stop1();
    bus.deliver({ id: "e2", name: Synced.name, payload: { connection: "c1", parts: [part] }, scope: { teamId: "t", sessionId: "ses_1" }, time: 2 });
    expect(got.c1).toHaveLength(1);
  });
});
