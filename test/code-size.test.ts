import { describe, expect, it } from "vitest";
import { componentSizes, functionSizes } from "./code-size";

/**
 * Sizes that keep the code easy to change (issue 34): no function in server/ over 80 lines,
 * no React component over 120 (components/ and app/), read from the syntax tree.
 */
describe("code size", () => {
  it("measures functions, methods and arrow functions with their names", () => {
    const sizes = functionSizes("test");
    expect(sizes.some((size) => size.file === "test/code-size.ts" && size.name === "functionSizes" && size.lines > 10)).toBe(true);
  });

  it("has no function in server/ over 80 lines", () => {
    const long = functionSizes("server").filter((size) => size.lines > 80);
    expect(long.map((size) => `${size.file}:${size.line} ${size.name} (${size.lines} lines)`)).toEqual([]);
  });

  it("has no component over 120 lines", () => {
    const long = [...componentSizes("components"), ...componentSizes("app")].filter((size) => size.lines > 120);
    expect(long.map((size) => `${size.file}:${size.line} ${size.name} (${size.lines} lines)`)).toEqual([]);
  });
});
