import { describe, expect, it } from "vitest";
import { arrange } from "./tree";

const item = (id: string, parentId?: string) => ({ session: { id, parentId } });
const shape = (rows: ReturnType<typeof arrange>) => rows.map((r) => `${"  ".repeat(r.depth)}${r.item.session.id}${r.detachedFrom ? `<${r.detachedFrom}` : ""}${r.children ? `(${r.children})` : ""}`);

describe("dashboard tree", () => {
  it("places loaded children under their parent, keeping the list's order among siblings", () => {
    const rows = arrange([item("a"), item("c1", "b"), item("b"), item("a1", "a"), item("c2", "b"), item("x1", "a1")]);
    expect(shape(rows)).toEqual(["a(1)", "  a1(1)", "    x1", "b(2)", "  c1", "  c2"]);
  });

  it("leaves a child whose parent is not loaded in place, marked with that parent", () => {
    const rows = arrange([item("z1", "z"), item("a"), item("a1", "a")]);
    expect(shape(rows)).toEqual(["z1<z", "a(1)", "  a1"]);
  });

  it("hides the descendants of a collapsed row", () => {
    const rows = arrange([item("a"), item("a1", "a"), item("x1", "a1"), item("b")], new Set(["a"]));
    expect(shape(rows)).toEqual(["a(1)", "b"]);
    expect(shape(arrange([item("a"), item("a1", "a"), item("x1", "a1")], new Set(["a1"])))).toEqual(["a(1)", "  a1(1)"]);
  });

  it("lists every row once even when bad data makes a cycle", () => {
    const rows = arrange([item("p", "q"), item("q", "p"), item("s", "s")]);
    expect(rows.map((r) => r.item.session.id).sort()).toEqual(["p", "q", "s"]);
  });
});
