import { describe, expect, it } from "vitest";
import { makeTeam, testDb } from "../../test/db";
import * as Id from "../id";
import { createCallerFactory } from "../trpc/init";
import { appRouter } from "../trpc/router";
import { Dashboard } from ".";

/** The dashboard's author filter lists the team's members, and only them. */
describe("Dashboard.authors (integration)", () => {
  it("lists the members of the acting team by name, never another team's", async () => {
    const db = testDb();
    const team = await makeTeam();
    const other = await makeTeam();
    const second = Id.ascending("user");
    await db.user.create({ data: { id: second, email: `${second}@test.local`, name: "Ada" } });
    await db.membership.create({ data: { teamId: team.teamId, userId: second, role: "member" } });

    const authors = await Dashboard.authors(team.ctx);
    expect(authors).toEqual([
      { id: second, name: "Ada", email: `${second}@test.local` },
      { id: team.userId, name: "Tester", email: `${team.userId}@test.local` },
    ]);
    expect(authors.map((a) => a.id)).not.toContain(other.userId);

    const caller = createCallerFactory(appRouter)(team.ctx);
    expect((await caller.dashboard.authors()).map((a) => a.id)).toEqual([second, team.userId]);
  });
});
