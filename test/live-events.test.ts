import { describe, expect, it } from "vitest";
import { type EventDef, registered } from "../server/bus/bus";
import * as PermissionEvents from "../server/permission/events";
import * as PresenceEvents from "../server/presence/events";
import * as SessionEvents from "../server/session/events";
import * as ShareEvents from "../server/share/events";
import * as StreamEvents from "../server/live/events";

/**
 * `LiveEvent` (server/live/event-types.ts) is the union of the events the modules
 * below define; this keeps it whole: every event the server sends to an audience, once
 * every module of the server is loaded (the tRPC router and the runtime import them all),
 * is defined in one of them.
 */
const isDef = (value: unknown): value is EventDef => typeof value === "object" && value !== null && "name" in value && "schema" in value && "audience" in value;

describe("live events", () => {
  it("every event sent to an audience is one of LiveEvent's", async () => {
    await import("../server/trpc/router");
    await import("../server/runtime");
    const typed = new Set([PermissionEvents, SessionEvents, ShareEvents, StreamEvents, PresenceEvents].flatMap((module) => Object.values(module).filter(isDef).map((def) => def.name)));
    const sent = registered()
      .filter((def) => def.audience.size > 0)
      .map((def) => def.name);
    expect(sent.length).toBeGreaterThan(10);
    expect(sent.filter((name) => !typed.has(name))).toEqual([]);
  });
});
