import { describe, expect, it } from "vitest";
import { Bus, reaches } from "../bus/bus";
import { MAX_CLIENTS, PresenceBook, TTL_MS } from "./book";
import { Left, Updated } from "./events";

/** A clock the test moves. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const ann = { id: "usr_ann", name: "Ann" };
const bob = { id: "usr_bob", name: "Bob" };

function beat(bus: Bus, teamId: string, sessionId: string, user: { id: string; name: string }, client: string, typing = false) {
  bus.publish(Updated, { sessionId, user, client, typing, ttlMs: TTL_MS }, { teamId, sessionId });
}

/** A tab's "left" event, scoped to `teamId`. */
function leave(bus: Bus, teamId: string, sessionId: string, userId: string, client: string) {
  bus.publish(Left, { sessionId, userId, client }, { teamId, sessionId });
}

/** A book on a bus of its own, its clock the test's to move. */
function freshBook(clock = manualClock()) {
  const bus = new Bus();
  return { bus, clock, book: new PresenceBook(bus, clock) };
}

describe("presence events", () => {
  it("go to the team's stream only: never to a share link's viewers", () => {
    for (const def of [Updated, Left]) {
      expect(reaches(def.name, "team")).toBe(true);
      expect(reaches(def.name, "viewer")).toBe(false);
      expect(reaches(def.name, "member")).toBe(false);
    }
  });
});

describe("presence book", () => {
  it("lists a tab from its heartbeat until its time to live runs out, each heartbeat renewing it", () => {
    const { bus, clock, book } = freshBook();
    beat(bus, "team_a", "ses_1", ann, "tab-ann-1");
    expect(book.list("team_a")).toEqual([{ sessionId: "ses_1", user: ann, client: "tab-ann-1", typing: false, ttlMs: TTL_MS }]);
    clock.advance(TTL_MS - 1_000);
    beat(bus, "team_a", "ses_1", ann, "tab-ann-1", true);
    clock.advance(TTL_MS - 1_000);
    expect(book.list("team_a")).toEqual([{ sessionId: "ses_1", user: ann, client: "tab-ann-1", typing: true, ttlMs: 1_000 }]);
    clock.advance(1_000);
    expect(book.list("team_a")).toEqual([]);
    expect(book.find("team_a", "ses_1", ann.id, "tab-ann-1")).toBeUndefined();
  });

  it("forgets a tab that left at once, and only that tab", () => {
    const { bus, book } = freshBook();
    beat(bus, "team_a", "ses_1", ann, "tab-ann-1");
    beat(bus, "team_a", "ses_1", ann, "tab-ann-2");
    leave(bus, "team_a", "ses_1", ann.id, "tab-ann-1");
    expect(book.list("team_a").map((viewer) => viewer.client)).toEqual(["tab-ann-2"]);
  });

  it("keeps each team's presence to itself, even for the same session id", () => {
    const { bus, book } = freshBook();
    beat(bus, "team_a", "ses_1", ann, "tab-ann-1");
    beat(bus, "team_b", "ses_2", bob, "tab-bob-1");
    // A left event scoped to another team does not touch team_a's tab.
    leave(bus, "team_b", "ses_1", ann.id, "tab-ann-1");
    expect(book.list("team_a").map((viewer) => viewer.user.id)).toEqual([ann.id]);
    expect(book.list("team_b").map((viewer) => viewer.user.id)).toEqual([bob.id]);
    expect(book.list("team_c")).toEqual([]);
  });

  it("hears heartbeats that reached another instance (events bridged between buses)", () => {
    const a = new Bus();
    const b = new Bus();
    // What the PostgreSQL bridge does: what one instance publishes, the other delivers.
    a.onPublish((event) => b.deliver(event));
    b.onPublish((event) => a.deliver(event));
    const clock = manualClock();
    const onA = new PresenceBook(a, clock);
    const onB = new PresenceBook(b, clock);
    beat(a, "team_a", "ses_1", ann, "tab-ann-1");
    beat(b, "team_a", "ses_1", bob, "tab-bob-1", true);
    const who = (book: PresenceBook) => book.list("team_a").map((viewer) => `${viewer.user.name}${viewer.typing ? " (typing)" : ""}`);
    expect(who(onA)).toEqual(["Ann", "Bob (typing)"]);
    expect(who(onB)).toEqual(["Ann", "Bob (typing)"]);
    b.publish(Left, { sessionId: "ses_1", userId: bob.id, client: "tab-bob-1" }, { teamId: "team_a", sessionId: "ses_1" });
    expect(who(onA)).toEqual(["Ann"]);
  });

  it(`counts at most ${MAX_CLIENTS} tabs of one member per session, dropping the stalest`, () => {
    const { bus, book } = freshBook();
    for (let i = 0; i < MAX_CLIENTS + 3; i++) beat(bus, "team_a", "ses_1", ann, `tab-ann-${i}`);
    // The first tab beats again: it is the newest now and stays.
    beat(bus, "team_a", "ses_1", ann, "tab-ann-0");
    const clients = book.list("team_a").map((viewer) => viewer.client);
    expect(clients).toHaveLength(MAX_CLIENTS);
    expect(clients).toContain("tab-ann-0");
    expect(clients).not.toContain("tab-ann-1");
    expect(book.size).toBe(MAX_CLIENTS);
  });

  it("sweeps expired tabs of every team out of memory", () => {
    const { bus, clock, book } = freshBook();
    for (let i = 0; i < 50; i++) beat(bus, `team_${i}`, "ses_1", ann, "tab-ann-1");
    expect(book.size).toBe(50);
    clock.advance(60_000);
    beat(bus, "team_x", "ses_1", bob, "tab-bob-1");
    expect(book.size).toBe(1);
  });
});
