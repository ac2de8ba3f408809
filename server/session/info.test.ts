import { describe, expect, it } from "vitest";
import { defaultTitle, forkTitle, isDefaultTitle } from "./info";

describe("session titles", () => {
  const at = Date.UTC(2026, 10, 21, 9, 5, 7, 42);

  it("default titles name root and child sessions with a readable UTC time, not an ISO timestamp", () => {
    expect(defaultTitle(false, at)).toBe("New session - Nov 21, 2026, 09:05 UTC");
    expect(defaultTitle(true, at)).toBe("Child session - Nov 21, 2026, 09:05 UTC");
    expect(defaultTitle(false, Date.UTC(2027, 0, 3, 23, 59, 59, 999))).toBe("New session - Jan 3, 2027, 23:59 UTC");
  });

  it("isDefaultTitle recognises exactly the default shapes: readable, and the ISO form of older sessions", () => {
    expect(isDefaultTitle(defaultTitle(false, at))).toBe(true);
    expect(isDefaultTitle(defaultTitle(true, at))).toBe(true);
    expect(isDefaultTitle("New session - 2026-11-21T09:05:07.042Z")).toBe(true);
    expect(isDefaultTitle("Child session - 2026-11-21T09:05:07.042Z")).toBe(true);

    for (const title of [
      "New session",
      "New session - ",
      "New session - yesterday",
      "New session - 2026-11-21",
      "New session - 2026-11-21T09:05:07Z",
      "new session - 2026-11-21T09:05:07.042Z",
      "Old session - 2026-11-21T09:05:07.042Z",
      "Child session -2026-11-21T09:05:07.042Z",
      "Fix login New session - 2026-11-21T09:05:07.042Z",
      "New session - 2026-11-21T09:05:07.042Z (fork #1)",
      "Child session - 2026-11-21T09:05:07.042Z\n",
      "New session - Nov 21, 2026",
      "New session - Nov 21, 2026, 9:05 UTC",
      "New session - November 21, 2026, 09:05 UTC",
      "New session - Nov 21, 2026, 09:05 UTC (fork #1)",
      "Notes on New session - Nov 21, 2026, 09:05 UTC",
      "Refactor the parser",
      "",
    ]) {
      expect(isDefaultTitle(title), title).toBe(false);
    }
  });

  it("forkTitle adds (fork #1) or increments an existing suffix", () => {
    expect(forkTitle("x")).toBe("x (fork #1)");
    expect(forkTitle("x (fork #1)")).toBe("x (fork #2)");
    expect(forkTitle("x (fork #9)")).toBe("x (fork #10)");
    expect(forkTitle("x (fork #1) (fork #41)")).toBe("x (fork #1) (fork #42)");
    // Only a real trailing suffix counts.
    expect(forkTitle("x (fork #1) notes")).toBe("x (fork #1) notes (fork #1)");
    expect(forkTitle("x (fork #a)")).toBe("x (fork #a) (fork #1)");
  });
});

describe("forkTitle length", () => {
  it("keeps a fork's title within the maximum title length", async () => {
    const { forkTitle, MAX_TITLE } = await import("./info");
    const long = "x".repeat(MAX_TITLE);
    const once = forkTitle(long);
    expect(once.length).toBeLessThanOrEqual(MAX_TITLE);
    expect(once.endsWith(" (fork #1)")).toBe(true);
    expect(forkTitle(once).endsWith(" (fork #2)")).toBe(true);
    expect(forkTitle(once).length).toBeLessThanOrEqual(MAX_TITLE);
  });
});
