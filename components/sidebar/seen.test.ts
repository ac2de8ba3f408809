import { describe, expect, it } from "vitest";
import { MAX_REMEMBERED, isUnread, markSeen, parseSeen } from "./seen";

describe("unread markers", () => {
  it("a session changed since it was last seen is unread; not the one open now; not one unchanged since tracking began", () => {
    const seen = { since: 1_000, sessions: { ses_a: 5_000 } };
    expect(isUnread(seen, { id: "ses_a", updated: 6_000 }, undefined)).toBe(true);
    expect(isUnread(seen, { id: "ses_a", updated: 5_000 }, undefined)).toBe(false);
    expect(isUnread(seen, { id: "ses_a", updated: 6_000 }, "ses_a")).toBe(false);
    // Never opened: unread only when changed after this browser began keeping track.
    expect(isUnread(seen, { id: "ses_b", updated: 900 }, undefined)).toBe(false);
    expect(isUnread(seen, { id: "ses_b", updated: 1_100 }, undefined)).toBe(true);
  });

  it("marking keeps the latest change seen, never goes back, and forgets the oldest beyond the cap", () => {
    let seen = { since: 0, sessions: {} as Record<string, number> };
    seen = markSeen(seen, "ses_a", 10);
    expect(markSeen(seen, "ses_a", 5)).toBe(seen);
    expect(isUnread(seen, { id: "ses_a", updated: 10 }, undefined)).toBe(false);
    for (let i = 0; i < MAX_REMEMBERED + 5; i++) seen = markSeen(seen, `ses_${i}`, 100 + i);
    expect(Object.keys(seen.sessions)).toHaveLength(MAX_REMEMBERED);
    expect(seen.sessions.ses_a).toBeUndefined();
  });

  it("reads what was stored, and starts over from now on anything unreadable", () => {
    expect(parseSeen(JSON.stringify({ since: 7, sessions: { ses_a: 9, bad: "x" } }), 100)).toEqual({ since: 7, sessions: { ses_a: 9 } });
    expect(parseSeen("{not json", 100)).toEqual({ since: 100, sessions: {} });
    expect(parseSeen(null, 100)).toEqual({ since: 100, sessions: {} });
    expect(parseSeen(JSON.stringify([1, 2]), 100)).toEqual({ since: 100, sessions: {} });
  });
});
