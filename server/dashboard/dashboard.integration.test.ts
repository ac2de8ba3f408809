import { beforeAll, describe, expect, it } from "vitest";
import { makeTeam, testDb, type TeamFixture } from "../../test/db";
import { parleyError } from "../../test/fixtures";
import * as Id from "../id";
import { Session } from "../session";
import type { Context } from "../services";
import { Dashboard } from ".";

/** The dashboard against a real PostgreSQL: every filter, search, sort, totals and the cursor. */

interface Seed {
  title: string;
  project: "p1" | "p2";
  author: "u1" | "u2";
  parent?: string;
  cost: number;
  tokens: [input: number, output: number, reasoning: number, cacheRead: number, cacheWrite: number];
  status: "idle" | "busy" | "retry";
  hoursAgo: number;
  archived?: boolean;
  lines?: [additions: number, deletions: number];
}

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

const SEEDS: Record<string, Seed> = {
  login: { title: "Fix login bug", project: "p1", author: "u1", cost: 1.5, tokens: [100, 50, 10, 20, 5], status: "busy", hoursAgo: 1, lines: [10, 2] },
  filters: { title: "Add dashboard filters", project: "p1", author: "u2", cost: 0.25, tokens: [400, 10, 0, 0, 0], status: "idle", hoursAgo: 2, archived: true, lines: [40, 4] },
  refactor: { title: "Refactor LOGIN flow 100%_done", project: "p2", author: "u1", cost: 3, tokens: [10, 10, 0, 0, 0], status: "retry", hoursAgo: 72, lines: [5, 50] },
  child: { title: "Child: run the tests", project: "p1", author: "u1", parent: "login", cost: 0.1, tokens: [1000, 1, 1, 1, 1], status: "idle", hoursAgo: 3 },
  docs: { title: "Write docs", project: "p2", author: "u2", cost: 0, tokens: [0, 0, 0, 0, 0], status: "idle", hoursAgo: 5 },
};
type Key = keyof typeof SEEDS;

describe("Dashboard.list (integration)", () => {
  let team: TeamFixture;
  let other: TeamFixture;
  const ids = {} as Record<Key, string>;
  const projects = { p1: "", p2: "" };
  const authors = { u1: "", u2: "" };

  async function seed(ctxFor: (s: Seed) => Context, projectOf: (s: Seed) => string, into: Record<string, string>) {
    const db = testDb();
    for (const [key, s] of Object.entries(SEEDS)) {
      const info = await Session.create(ctxFor(s), { projectId: projectOf(s), title: s.title, parentId: s.parent ? into[s.parent] : undefined });
      into[key] = info.id;
      const [input, output, reasoning, read, write] = s.tokens;
      const updated = new Date(NOW - s.hoursAgo * HOUR);
      await db.session.update({
        where: { id: info.id },
        data: {
          cost: s.cost,
          tokensInput: input,
          tokensOutput: output,
          tokensReasoning: reasoning,
          tokensCacheRead: read,
          tokensCacheWrite: write,
          tokensTotal: input + output + reasoning + read + write,
          status: s.status,
          statusData: s.status === "retry" ? { type: "retry", attempt: 2, message: "rate limited", next: NOW } : undefined,
          timeUpdated: updated,
          timeArchived: s.archived ? updated : null,
          summaryAdditions: s.lines?.[0] ?? null,
          summaryDeletions: s.lines?.[1] ?? null,
          summaryFiles: s.lines ? 1 : null,
        },
      });
    }
  }

  beforeAll(async () => {
    const db = testDb();
    team = await makeTeam();
    projects.p1 = team.projectId;
    projects.p2 = Id.ascending("project");
    await db.project.create({ data: { id: projects.p2, teamId: team.teamId, name: "second", directory: `/tmp/${projects.p2}` } });
    authors.u1 = team.userId;
    authors.u2 = Id.ascending("user");
    await db.user.create({ data: { id: authors.u2, email: `${authors.u2}@test.local`, name: "Second Author" } });
    await db.membership.create({ data: { teamId: team.teamId, userId: authors.u2, role: "member" } });
    const ctxOf = (s: Seed): Context => ({ ...team.ctx, actor: { teamId: team.teamId, userId: authors[s.author] } });
    await seed(ctxOf, (s) => projects[s.project], ids);

    // Another team with the same titles, costs and statuses: never listed.
    other = await makeTeam();
    await seed(() => other.ctx, () => other.projectId, {});
  });

  const list = (input: Dashboard.ListInput = {}) => Dashboard.list(team.ctx, input);
  const keysOf = (result: Dashboard.ListResult) => result.items.map((item) => (Object.keys(ids) as Key[]).find((k) => ids[k] === item.session.id));

  function totalsOf(keys: Key[]): Dashboard.Totals {
    const sum = (f: (s: Seed) => number) => keys.reduce((n, k) => n + f(SEEDS[k]!), 0);
    return {
      sessions: keys.length,
      cost: sum((s) => s.cost),
      tokens: {
        input: sum((s) => s.tokens[0]),
        output: sum((s) => s.tokens[1]),
        reasoning: sum((s) => s.tokens[2]),
        cache: { read: sum((s) => s.tokens[3]), write: sum((s) => s.tokens[4]) },
      },
      additions: sum((s) => s.lines?.[0] ?? 0),
      deletions: sum((s) => s.lines?.[1] ?? 0),
    };
  }

  async function expectFilter(input: Dashboard.ListInput, expected: Key[]) {
    const result = await list(input);
    expect(keysOf(result)).toEqual(expected);
    expect(result.totals).toEqual(totalsOf(expected));
    expect(result.corrupt).toEqual([]);
  }

  it("lists the team's unarchived sessions, roots and children, newest update first, with totals", async () => {
    const result = await list();
    expect(keysOf(result)).toEqual(["login", "child", "docs", "refactor"]);
    expect(result.totals).toEqual(totalsOf(["login", "child", "docs", "refactor"]));
    expect(result.nextCursor).toBeUndefined();
    const login = result.items[0]!;
    expect(login.author).toEqual({ id: authors.u1, name: "Tester", email: `${authors.u1}@test.local` });
    expect(login.project).toEqual({ id: projects.p1, name: "project" });
    expect(login.childCount).toBe(1);
    expect(login.session).toMatchObject({ title: "Fix login bug", status: { type: "busy" }, cost: 1.5, summary: { additions: 10, deletions: 2 } });
    expect(login.session.tokens).toEqual({ input: 100, output: 50, reasoning: 10, cache: { read: 20, write: 5 } });
    expect(result.items.find((i) => i.session.id === ids.refactor)?.session.status).toEqual({ type: "retry", attempt: 2, message: "rate limited", next: NOW });
    expect(result.items.find((i) => i.session.id === ids.child)?.session.parentId).toBe(ids.login);
  });

  it("never shows another team's sessions", async () => {
    const all = await list({ archived: "all", limit: 200 });
    expect(all.items.every((i) => i.session.teamId === team.teamId)).toBe(true);
    expect(all.totals?.sessions).toBe(5);
    // Filtering by the other team's project or author finds nothing.
    await expectFilter({ projectId: other.projectId, archived: "all" }, []);
    await expectFilter({ authorId: other.userId, archived: "all" }, []);
    // And the other team sees only its own.
    const theirs = await Dashboard.list(other.ctx, { archived: "all" });
    expect(theirs.items.every((i) => i.session.teamId === other.teamId)).toBe(true);
    expect(theirs.totals?.sessions).toBe(5);
  });

  it("filters by project, author and status", async () => {
    await expectFilter({ projectId: projects.p1 }, ["login", "child"]);
    await expectFilter({ projectId: projects.p2 }, ["docs", "refactor"]);
    await expectFilter({ authorId: authors.u2 }, ["docs"]);
    await expectFilter({ authorId: authors.u2, archived: "all" }, ["filters", "docs"]);
    await expectFilter({ status: "busy" }, ["login"]);
    await expectFilter({ status: "retry" }, ["refactor"]);
    await expectFilter({ status: "idle" }, ["child", "docs"]);
    await expectFilter({ projectId: projects.p1, authorId: authors.u1, status: "idle" }, ["child"]);
  });

  it("filters by the updated time range, inclusive", async () => {
    await expectFilter({ updatedFrom: NOW - 3 * HOUR }, ["login", "child"]);
    await expectFilter({ updatedTo: NOW - 3 * HOUR }, ["child", "docs", "refactor"]);
    await expectFilter({ updatedFrom: NOW - 6 * HOUR, updatedTo: NOW - 2 * HOUR, archived: "all" }, ["filters", "child", "docs"]);
  });

  it("filters archived: not archived by default, archived only, or all", async () => {
    await expectFilter({ archived: true }, ["filters"]);
    await expectFilter({ archived: "all" }, ["login", "filters", "child", "docs", "refactor"]);
  });

  it("filters roots or the children of one session", async () => {
    await expectFilter({ parentId: null }, ["login", "docs", "refactor"]);
    await expectFilter({ parentId: ids.login }, ["child"]);
    await expectFilter({ parentId: ids.docs }, []);
  });

  it("searches titles case-insensitively, with % and _ taken literally", async () => {
    await expectFilter({ search: "login" }, ["login", "refactor"]);
    await expectFilter({ search: "LOGIN flow" }, ["refactor"]);
    await expectFilter({ search: "100%_" }, ["refactor"]);
    await expectFilter({ search: "%" }, ["refactor"]);
    await expectFilter({ search: "a_d", archived: "all" }, []);
    await expectFilter({ search: "  " }, ["login", "child", "docs", "refactor"]);
    await expectFilter({ search: "docs", projectId: projects.p1 }, []);
  });

  it("sorts by cost and by total tokens, descending", async () => {
    await expectFilter({ sort: "cost" }, ["refactor", "login", "child", "docs"]);
    await expectFilter({ sort: "tokens", archived: "all" }, ["child", "filters", "login", "refactor", "docs"]);
    await expectFilter({ sort: "updated", archived: "all" }, ["login", "filters", "child", "docs", "refactor"]);
  });

  it("pages with the cursor through every session once, in order, for each sort", async () => {
    for (const sort of ["updated", "cost", "tokens"] as const) {
      const whole = keysOf(await list({ sort, archived: "all" }));
      const seen: (Key | undefined)[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await list({ sort, archived: "all", limit: 2, cursor });
        // The first page has the totals over the whole filter; the pages after it leave them out.
        if (cursor) expect(page.totals).toBeUndefined();
        else expect(page.totals?.sessions).toBe(5);
        seen.push(...keysOf(page));
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < 10);
      expect(seen).toEqual(whole);
      expect(pages).toBe(3);
    }
  });

  it("breaks ties by id, so equal costs still page exactly once", async () => {
    const fixture = await makeTeam();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await Session.create(fixture.ctx, { projectId: fixture.projectId, title: `Tie ${i}` })).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await Dashboard.list(fixture.ctx, { sort: "cost", limit: 3, cursor });
      seen.push(...page.items.map((i) => i.session.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...made].sort().reverse());
  });

  it("rejects a malformed cursor, a cursor of another sort and a limit over 200", async () => {
    const first = await list({ sort: "cost", limit: 1 });
    expect(first.nextCursor).toBeDefined();
    await parleyError(list({ sort: "tokens", cursor: first.nextCursor }), "INVALID");
    await parleyError(list({ cursor: "not-a-cursor" }), "INVALID");
    await parleyError(list({ cursor: Buffer.from(JSON.stringify(["cost", "1; DROP TABLE", ids.login])).toString("base64url"), sort: "cost" }), "INVALID");
    await parleyError(list({ limit: 201 }), "INVALID");
    await parleyError(list({ projectId: "ses_nope" }), "INVALID");
  });

  it("sums the totals for the first page only: a cursor page leaves them out, and its queries have no totals query", async () => {
    const first = await list({ sort: "cost", limit: 1 });
    expect(first.totals).toEqual(totalsOf(["refactor", "login", "child", "docs"]));
    expect(first.nextCursor).toBeDefined();
    const second = await list({ sort: "cost", limit: 1, cursor: first.nextCursor });
    expect(keysOf(second)).toEqual(["login"]);
    expect(second).not.toHaveProperty("totals");
    expect(Dashboard.queries(team.teamId, { sort: "cost" }).totals).toBeDefined();
    expect(Dashboard.queries(team.teamId, { sort: "cost", cursor: first.nextCursor }).totals).toBeUndefined();
  });

  it("counts each listed session's children, archived ones included", async () => {
    const fixture = await makeTeam();
    const parent = await Session.create(fixture.ctx, { projectId: fixture.projectId, title: "Parent" });
    const lone = await Session.create(fixture.ctx, { projectId: fixture.projectId, title: "Lone" });
    const children = [];
    for (let i = 0; i < 3; i++) children.push(await Session.create(fixture.ctx, { projectId: fixture.projectId, title: `Child ${i}`, parentId: parent.id }));
    await testDb().session.update({ where: { id: children[0]!.id }, data: { timeArchived: new Date() } });
    const result = await Dashboard.list(fixture.ctx, {});
    const countOf = (id: string) => result.items.find((item) => item.session.id === id)?.childCount;
    expect(result.items).toHaveLength(4);
    expect(countOf(parent.id)).toBe(3);
    expect(countOf(lone.id)).toBe(0);
    expect(countOf(children[1]!.id)).toBe(0);
  });

  it("counts the filter exactly beyond one page", async () => {
    const fixture = await makeTeam();
    for (let i = 0; i < 12; i++) await Session.create(fixture.ctx, { projectId: fixture.projectId, title: `Bulk ${i}` });
    await testDb().session.updateMany({ where: { teamId: fixture.teamId }, data: { cost: 0.125, tokensInput: 3, tokensTotal: 3 } });
    const page = await Dashboard.list(fixture.ctx, { limit: 5 });
    expect(page.items).toHaveLength(5);
    expect(page.totals).toMatchObject({ sessions: 12, cost: 1.5, tokens: { input: 36 } });
  });
});
