import { describe, expect, it } from "vitest";
import { isInside } from "./inside";

describe("isInside", () => {
  it("is true for the folder itself and anything below it", () => {
    expect(isInside("/p", "/p")).toBe(true);
    expect(isInside("/p", "/p/a/b")).toBe(true);
    // A name that starts with two dots is a child, not a way up (the sandbox's old check said otherwise).
    expect(isInside("/p", "/p/..foo")).toBe(true);
  });

  it("is false for a parent, a sibling with the same prefix and a way up", () => {
    expect(isInside("/p/a", "/p")).toBe(false);
    expect(isInside("/p", "/project")).toBe(false);
    expect(isInside("/p", "/p/../q")).toBe(false);
    expect(isInside("/p", "/")).toBe(false);
  });
});
