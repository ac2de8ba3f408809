import { describe, expect, it } from "vitest";
import { circles, edgesWithin, importGraph, specifiers } from "./import-graph";

/**
 * The server's import graph has no circle (issue 34): a module below another never imports
 * it back, type-only imports included — a reader can follow the layers one way.
 */
describe("the import graph of server/", () => {
  it("reads every kind of import, type-only ones and re-exports included", () => {
    const text = [
      'import type { A } from "./a";',
      'import { b, type C } from "../b";',
      'export { d } from "./d";',
      'export type { E } from "@/server/e";',
      'import "./side-effect";',
      'const f = await import("./f");',
      "// import { g } from './commented';",
      'import {\n  h,\n  i,\n} from "./multi-line";',
    ].join("\n");
    expect(specifiers(text).sort()).toEqual(["../b", "./a", "./d", "./f", "./multi-line", "./side-effect", "@/server/e"].sort());
  });

  it("finds a circle when two files import each other (type-only), and names its imports", () => {
    const graph = new Map([
      ["a.ts", new Set(["b.ts"])],
      ["b.ts", new Set(["c.ts"])],
      ["c.ts", new Set(["a.ts"])],
      ["d.ts", new Set(["a.ts"])],
    ]);
    const found = circles(graph);
    expect(found).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(edgesWithin(graph, found[0] ?? [])).toEqual(["a.ts -> b.ts", "b.ts -> c.ts", "c.ts -> a.ts"]);
  });

  it("has no circle", () => {
    const graph = importGraph("server");
    expect(graph.size).toBeGreaterThan(100);
    const report = circles(graph).map((circle) => `${circle.length} files:\n  ${edgesWithin(graph, circle).join("\n  ")}`);
    expect(report).toEqual([]);
  });
});
