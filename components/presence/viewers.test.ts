import { describe, expect, it } from "vitest";
import type { LiveEvent } from "@/server/live/event-types";
import { type Presence, initials, typingLine, viewersOf, withEvent, withListed, withoutExpired } from "./viewers";

const ann = { id: "usr_ann", name: "Ann Lee" };
const bob = { id: "usr_bob", name: "Bob" };
const scope = { teamId: "team_a", sessionId: "ses_1" };

function updated(user: { id: string; name: string }, client: string, typing = false, sessionId = "ses_1"): LiveEvent {
  return { id: `${user.id}-${client}-${String(typing)}`, name: "presence.updated", payload: { sessionId, user, client, typing, ttlMs: 8_000 }, scope, time: 0 };
}

describe("presence in the browser", () => {
  it("holds each heartbeat for its time to live, renewed by the next", () => {
    let held: Presence = withEvent(new Map(), updated(ann, "tab-1"), 1_000);
    expect(viewersOf(held, "ses_1", undefined, 8_999)).toEqual([{ id: ann.id, name: ann.name, typing: false }]);
    held = withEvent(held, updated(ann, "tab-1", true), 5_000);
    expect(viewersOf(held, "ses_1", undefined, 12_000)).toEqual([{ id: ann.id, name: ann.name, typing: true }]);
    expect(viewersOf(held, "ses_1", undefined, 13_000)).toEqual([]);
    expect(withoutExpired(held, 13_000).size).toBe(0);
    expect(withoutExpired(held, 12_000)).toBe(held);
  });

  it("shows each member once, typing when any of their tabs types, never the member looking, only the session asked", () => {
    let held: Presence = new Map();
    for (const event of [updated(ann, "tab-1"), updated(ann, "tab-2", true), updated(bob, "tab-3"), updated(bob, "tab-4", false, "ses_2")]) held = withEvent(held, event, 0);
    expect(viewersOf(held, "ses_1", undefined, 1)).toEqual([
      { id: ann.id, name: ann.name, typing: true },
      { id: bob.id, name: bob.name, typing: false },
    ]);
    expect(viewersOf(held, "ses_1", ann.id, 1).map((viewer) => viewer.name)).toEqual(["Bob"]);
    expect(viewersOf(held, "ses_2", undefined, 1).map((viewer) => viewer.name)).toEqual(["Bob"]);
  });

  it("drops a tab that left, and adds what the server lists", () => {
    let held: Presence = withEvent(new Map(), updated(ann, "tab-1"), 0);
    const left: LiveEvent = { id: "left", name: "presence.left", payload: { sessionId: "ses_1", userId: ann.id, client: "tab-1" }, scope, time: 0 };
    held = withEvent(held, left, 1);
    expect(held.size).toBe(0);
    expect(withEvent(held, left, 1)).toBe(held);
    held = withListed(held, [{ sessionId: "ses_1", user: bob, client: "tab-9", typing: false, ttlMs: 2_000 }], 100);
    expect(viewersOf(held, "ses_1", undefined, 2_099).map((viewer) => viewer.name)).toEqual(["Bob"]);
    expect(viewersOf(held, "ses_1", undefined, 2_100)).toEqual([]);
    // A heartbeat heard after the listing was asked wins over it.
    held = withEvent(held, updated(bob, "tab-9", true), 200);
    held = withListed(held, [{ sessionId: "ses_1", user: bob, client: "tab-9", typing: false, ttlMs: 2_000 }], 100);
    expect(viewersOf(held, "ses_1", undefined, 300)).toEqual([{ id: bob.id, name: bob.name, typing: true }]);
  });

  it("names who types, and makes initials", () => {
    expect(typingLine([{ id: "1", name: "Ann", typing: false }])).toBe("");
    expect(typingLine([{ id: "1", name: "Ann", typing: true }])).toBe("Ann is typing…");
    expect(typingLine([{ id: "1", name: "Ann", typing: true }, { id: "2", name: "Bob", typing: true }])).toBe("Ann and Bob are typing…");
    expect(initials("Ann Marie Lee")).toBe("AL");
    expect(initials("  bob ")).toBe("B");
    expect(initials("")).toBe("?");
  });
});
