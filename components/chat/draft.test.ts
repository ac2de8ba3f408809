import { describe, expect, it } from "vitest";
import { takesOffer } from "./draft";

describe("draft offers", () => {
  it("a revert's prompt (keepTyped) replaces an empty composer only; a starter prompt replaces any", () => {
    expect(takesOffer("", { keepTyped: true })).toBe(true);
    expect(takesOffer("  \n", { keepTyped: true })).toBe(true);
    expect(takesOffer("my draft", { keepTyped: true })).toBe(false);
    expect(takesOffer("my draft", {})).toBe(true);
  });
});
