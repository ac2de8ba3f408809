import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TeamFixture, databaseUrl, makeTeam, testDb } from "../../test/db";
import { parleyError } from "../../test/fixtures";
import { type Db, createDb } from "../db/client";
import { isParleyError } from "../errors";
import * as Id from "../id";
import { Session } from "../session";
import { Project } from ".";

/** Registering project directories: only inside the projects root, only by admins, one team per directory. */
describe("projects (integration)", () => {
  let base: string;
  let root: string;
  let team: TeamFixture;
  let other: TeamFixture;

  beforeAll(async () => {
    base = mkdtempSync(path.join(os.tmpdir(), "parley-projects-"));
    root = path.join(base, "root");
    for (const dir of ["app", "api", "nested/deep", "shared", "by-admin", "removable", "raced-1", "raced-2", "raced-3"]) mkdirSync(path.join(root, dir), { recursive: true });
    mkdirSync(path.join(base, "outside"));
    writeFileSync(path.join(root, "notes.txt"), "not a folder");
    symlinkSync(path.join(base, "outside"), path.join(root, "escape"));
    symlinkSync(path.join(root, "app"), path.join(root, "app-link"));
    team = await makeTeam({ directory: path.join(base, "default-elsewhere") });
    other = await makeTeam({ directory: path.join(base, "other-default") });
  });
  afterAll(() => {
    rmSync(base, { recursive: true, force: true });
  });

  const create = (fixture: TeamFixture, directory: string, name?: string) => Project.create(fixture.ctx, { directory, name }, { root });

  it("an owner registers a folder of the root, relative or absolute, stored as its real path", async () => {
    const app = await create(team, "app");
    expect(app).toMatchObject({ teamId: team.teamId, name: "app", directory: path.join(root, "app") });
    expect(app.id).toMatch(/^prj_/);
    const api = await create(team, path.join(root, "api"), "The API");
    expect(api).toMatchObject({ name: "The API", directory: path.join(root, "api") });
    expect((await Project.list(team.ctx)).map((p) => p.id)).toEqual([team.projectId, app.id, api.id]);
  });

  it("refuses paths out of the root, written or through a symbolic link, the root itself, files and missing folders", async () => {
    const refused = async (directory: string, message: RegExp) => {
      const error = await parleyError(create(team, directory), "INVALID");
      expect(error.message).toMatch(message);
    };
    await refused("../outside", /outside the projects root/);
    await refused("nested/../../outside", /outside the projects root/);
    await refused(path.join(base, "outside"), /outside the projects root/);
    await refused("/etc", /outside the projects root/);
    await refused("escape", /through a symbolic link/);
    await refused(".", /not the root itself/);
    await refused(root, /not the root itself/);
    await refused("notes.txt", /not a directory/);
    await refused("missing", /does not exist/);
    expect((await Project.list(team.ctx)).some((p) => !p.directory.startsWith(root) && p.id !== team.projectId)).toBe(false);
  });

  it("a folder is one team's: the same one, one inside it or one around it is refused to another team", async () => {
    await create(team, "nested/deep");
    expect((await parleyError(create(other, "nested"), "CONFLICT")).message).toMatch(/^This folder cannot be used: it is inside, around or equal to a folder already registered/);
    expect((await parleyError(create(other, "nested/deep"), "CONFLICT")).message).toMatch(/^This folder cannot be used: it is inside, around or equal to a folder already registered/);
    expect((await parleyError(create(other, "app"), "CONFLICT")).message).toMatch(/^This folder cannot be used: it is inside, around or equal to a folder already registered/);
    // A link to the same folder is the same folder.
    expect((await parleyError(create(other, "app-link"), "CONFLICT")).message).toMatch(/^This folder cannot be used: it is inside, around or equal to a folder already registered/);
    expect((await parleyError(create(team, "app-link"), "CONFLICT")).message).toMatch(/already a project of this team/);
    expect(await create(other, "shared")).toMatchObject({ teamId: other.teamId });
  });

  it("two server instances (each its own connection pool) registering one folder for two teams at once: one wins", async () => {
    const instances: Db[] = [createDb(databaseUrl(), { max: 3 }), createDb(databaseUrl(), { max: 3 })];
    try {
      for (const folder of ["raced-1", "raced-2", "raced-3"]) {
        const attempts = [0, 1, 2, 3, 4, 5].map((i) => {
          const fixture = i % 2 === 0 ? team : other;
          return Project.create({ ...fixture.ctx, db: instances[Math.floor(i / 2) % 2]! }, { directory: folder }, { root });
        });
        const settled = await Promise.allSettled(attempts);
        const won = settled.filter((s) => s.status === "fulfilled");
        expect(won, folder).toHaveLength(1);
        for (const s of settled) {
          if (s.status === "rejected") expect(isParleyError(s.reason) && s.reason.code, String(s.reason)).toBe("CONFLICT");
        }
        expect(await testDb().project.count({ where: { directory: path.join(root, folder) } })).toBe(1);
      }
    } finally {
      await Promise.all(instances.map((db) => db.$disconnect()));
    }
  });

  it("members cannot register or remove projects; admins can", async () => {
    const db = testDb();
    const memberId = Id.ascending("user");
    await db.user.create({ data: { id: memberId, email: `${memberId}@test.local`, name: "Member" } });
    await db.membership.create({ data: { teamId: team.teamId, userId: memberId, role: "member" } });
    const member = { ...team.ctx, actor: { userId: memberId, teamId: team.teamId } };
    expect((await parleyError(Project.create(member, { directory: "by-admin" }, { root }), "FORBIDDEN")).message).toMatch(/owners and admins/);
    await parleyError(Project.remove(member, team.projectId), "FORBIDDEN");
    await db.membership.update({ where: { teamId_userId: { teamId: team.teamId, userId: memberId } }, data: { role: "admin" } });
    expect(await Project.create(member, { directory: "by-admin" }, { root })).toMatchObject({ teamId: team.teamId, directory: path.join(root, "by-admin") });
  });

  it("removing: refused while sessions use the project, done once they are gone; another team's is not found", async () => {
    const project = await create(team, "removable");
    const session = await Session.create(team.ctx, { projectId: project.id });
    expect((await parleyError(Project.remove(team.ctx, project.id), "CONFLICT")).message).toMatch(/1 session/);
    await Session.remove(team.ctx, session.id);
    await Project.remove(team.ctx, project.id);
    expect((await Project.list(team.ctx)).map((p) => p.id)).not.toContain(project.id);
    await parleyError(Project.remove(team.ctx, other.projectId), "NOT_FOUND");
    expect((await Project.list(other.ctx)).map((p) => p.id)).toContain(other.projectId);
  });
});
