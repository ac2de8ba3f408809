import { describe, expect, it } from "vitest";
import { formatQuery, isFiltered, listInput, localDay, parseQuery } from "./query";

const parse = (qs: string) => parseQuery(new URLSearchParams(qs));

describe("dashboard query in the URL", () => {
  it("reads every filter and writes it back without the defaults", () => {
    const qs = "project=prj_0123abc&author=usr_0456def&status=busy&from=2026-01-01&to=2026-01-31&archived=all&q=fix+login&sort=cost";
    const query = parse(qs);
    expect(query).toEqual({
      projectId: "prj_0123abc",
      authorId: "usr_0456def",
      status: "busy",
      from: "2026-01-01",
      to: "2026-01-31",
      archived: "all",
      search: "fix login",
      sort: "cost",
    });
    expect(formatQuery(query)).toBe(qs);
    expect(formatQuery(parse(""))).toBe("");
    expect(isFiltered(parse("sort=tokens"))).toBe(false);
    expect(isFiltered(parse("q=x"))).toBe(true);
  });

  it("falls back to the defaults for anything unreadable", () => {
    expect(parse("project=../etc&status=sleeping&from=2026-02-30&to=yesterday&archived=maybe&sort=name&q=%20%20")).toEqual({
      projectId: undefined,
      authorId: undefined,
      status: undefined,
      from: undefined,
      to: undefined,
      archived: "active",
      search: undefined,
      sort: "updated",
    });
  });

  it("turns days into an inclusive range of local times", () => {
    const input = listInput(parse("from=2026-03-01&to=2026-03-02&archived=archived"), 50);
    expect(input.updatedFrom).toBe(new Date(2026, 2, 1).getTime());
    expect(input.updatedTo).toBe(new Date(2026, 2, 2, 23, 59, 59, 999).getTime());
    expect(input.archived).toBe(true);
    expect(listInput(parse(""), 50)).toMatchObject({ archived: false, sort: "updated", limit: 50, updatedFrom: undefined });
    expect(localDay("2026-02-29", false)).toBeNaN();
  });
});
