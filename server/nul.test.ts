import { describe, expect, it } from "vitest";
import { z } from "zod";
import { NUL_REPLACEMENT, refuseNul, withoutNul } from "./nul";

describe("NUL handling", () => {
  it("withoutNul replaces NUL in strings, arrays, object values and keys, and keeps clean values as they are", () => {
    const clean = { a: ["x", { b: "y" }], n: 1, t: true, z: null };
    expect(withoutNul(clean)).toBe(clean);
    expect(withoutNul("a\0b\0")).toBe(`a${NUL_REPLACEMENT}b${NUL_REPLACEMENT}`);
    expect(withoutNul({ out: ["ok", "a\0b"], meta: { "k\0": { deep: "\0" } }, n: 2 })).toEqual({
      out: ["ok", `a${NUL_REPLACEMENT}b`],
      meta: { [`k${NUL_REPLACEMENT}`]: { deep: NUL_REPLACEMENT } },
      n: 2,
    });
  });

  it("refuseNul refuses NUL with a message naming the field", () => {
    const schema = refuseNul(z.string().max(10), "a title");
    expect(schema.parse("fine")).toBe("fine");
    const result = schema.safeParse("a\0b");
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe("a title must not contain the NUL character (\\0)");
  });
});
