import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Id from "../server/id";
import { type TestApp, openApp } from "./app";
import { type Browser, signUp } from "./auth";

/**
 * Registering project folders through the real tRPC Route Handler with real sign-in
 * cookies (the hardening issue, item 5): two teams racing for one folder, a folder
 * reached through a symbolic link, Parley's data directory inside the projects root,
 * and rows stored before paths were made canonical.
 */

interface Outcome {
  status: number;
  message: string;
  directory: string | undefined;
}

describe("project registration (integration, through HTTP)", () => {
  let app: TestApp;
  let root: string;
  let ann: Browser;
  let bob: Browser;

  const folder = (...parts: string[]) => {
    const dir = path.join(root, ...parts);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  async function register(who: Browser, directory: string): Promise<Outcome> {
    const res = await app.call("project.create", { directory }, who.headers);
    const body = JSON.parse(res.text) as { result?: { data: { directory: string } }; error?: { message: string } };
    return { status: res.status, message: body.error?.message ?? "", directory: body.result?.data.directory };
  }

  /** Project rows (of any team) whose directory is `directory`. */
  const rowsAt = (directory: string) => app.rt.services.db.project.findMany({ where: { directory }, select: { teamId: true, directory: true } });

  beforeAll(async () => {
    app = await openApp("projreg", (dir) => {
      const projects = path.join(dir, "projects");
      mkdirSync(path.join(projects, "first"), { recursive: true });
      // The first team's project is configured through a symbolic link.
      symlinkSync(path.join(projects, "first"), path.join(dir, "first-link"));
      return {
        // The data directory lies inside the projects root (say, root /srv and data /srv/ops/parley).
        PARLEY_DATA_DIR: path.join(projects, "ops", "parley-data"),
        PARLEY_PROJECT_DIR: path.join(dir, "first-link"),
        PARLEY_PROJECTS_ROOT: projects,
        PARLEY_SIGNUP: "open",
      };
    });
    root = path.join(app.dir, "projects");
    const auth = await (await import("../server/auth/instance")).getAuth();
    ann = await signUp(auth, "ann@projects.test", "Ann");
    bob = await signUp(auth, "bob@projects.test", "Bob");
  });

  afterAll(async () => {
    await app?.close();
  });

  it("the default project of the first team is stored as its real path", async () => {
    const res = await app.call("project.list", undefined, ann.headers);
    expect(res.status).toBe(200);
    const projects = (JSON.parse(res.text) as { result: { data: { directory: string }[] } }).result.data;
    expect(projects.map((p) => p.directory)).toEqual([realpathSync(path.join(root, "first"))]);
  });

  it("six concurrent registrations of one folder by two teams: exactly one succeeds, the others get a conflict", async () => {
    for (const round of [1, 2, 3]) {
      const name = `contested-${round}`;
      const real = realpathSync(folder(name));
      symlinkSync(real, path.join(root, `${name}-link`));
      // The same folder written four ways: relative, with a dot, absolute, through a link.
      const spellings = [name, `./${name}`, real, `${name}-link`, `${name}/`, path.join(root, `${name}-link`)];
      const outcomes = await Promise.all(spellings.map((directory, i) => register(i % 2 === 0 ? ann : bob, directory)));
      const won = outcomes.filter((o) => o.status === 200);
      const lost = outcomes.filter((o) => o.status !== 200);
      expect(won, JSON.stringify(outcomes)).toHaveLength(1);
      expect(won[0]!.directory).toBe(real);
      for (const o of lost) {
        expect(o.status, o.message).toBe(409);
        expect(o.message).toMatch(/^This folder cannot be used: it is inside, around or equal to a folder already registered|already a project of this team/);
      }
      expect(await rowsAt(real)).toHaveLength(1);
    }
  });

  it("concurrent registrations of a folder and one inside it by two teams: only one of them succeeds", async () => {
    for (const round of [1, 2, 3]) {
      const outer = realpathSync(folder(`outer-${round}`));
      const inner = realpathSync(folder(`outer-${round}`, "inner"));
      const outcomes = await Promise.all([
        register(ann, outer),
        register(bob, inner),
        register(ann, outer),
        register(bob, inner),
      ]);
      const won = outcomes.filter((o) => o.status === 200);
      expect(won, JSON.stringify(outcomes)).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 409)).toHaveLength(3);
      expect((await rowsAt(outer)).length + (await rowsAt(inner)).length).toBe(1);
    }
  });

  it("refuses the data directory, anything under it, a folder holding it, and all of them through a symbolic link", async () => {
    const data = realpathSync(path.join(root, "ops", "parley-data"));
    mkdirSync(path.join(data, "snapshot"), { recursive: true });
    symlinkSync(data, path.join(root, "data-link"));
    symlinkSync(path.join(data, "snapshot"), path.join(root, "snapshot-link"));
    symlinkSync(path.join(root, "ops"), path.join(root, "ops-link"));
    for (const directory of ["ops/parley-data", "ops/parley-data/snapshot", "ops", "data-link", "snapshot-link", "ops-link", path.join(root, "data-link", "snapshot")]) {
      const outcome = await register(ann, directory);
      expect(outcome.status, `${directory}: ${outcome.message}`).toBe(400);
      expect(outcome.message).toMatch(/Parley's own data/);
    }
    const stored = await app.rt.services.db.project.findMany({ select: { directory: true } });
    expect(stored.filter((p) => p.directory === data || p.directory.startsWith(`${data}${path.sep}`) || data.startsWith(`${p.directory}${path.sep}`))).toEqual([]);
  });

  it("refuses a link into another team's project or around it, and stores the real path of a link it accepts", async () => {
    const alpha = realpathSync(folder("alpha", "sub"));
    expect((await register(ann, "alpha")).status).toBe(200);
    symlinkSync(alpha, path.join(root, "alpha-sub-link"));
    folder("beta", "deep");
    symlinkSync(path.join(root, "beta"), path.join(root, "beta-link"));
    expect((await register(bob, "beta/deep")).status).toBe(200);
    for (const [who, directory] of [[bob, "alpha-sub-link"], [ann, "beta-link"]] as const) {
      const outcome = await register(who, directory);
      expect(outcome.status, outcome.message).toBe(409);
      expect(outcome.message).toMatch(/^This folder cannot be used: it is inside, around or equal to a folder already registered/);
    }
    folder("gamma");
    symlinkSync(path.join(root, "gamma"), path.join(root, "gamma-link"));
    const gamma = await register(bob, "gamma-link");
    expect(gamma).toMatchObject({ status: 200, directory: realpathSync(path.join(root, "gamma")) });
  });

  it("a row stored before paths were canonical (through a link, not normalized) still counts", async () => {
    const legacy = realpathSync(folder("legacy"));
    symlinkSync(legacy, path.join(root, "legacy-link"));
    const bobTeam = (await app.rt.services.db.membership.findFirstOrThrow({ where: { userId: bob.userId } })).teamId;
    await app.rt.services.db.project.create({
      data: { id: Id.ascending("project"), teamId: bobTeam, name: "legacy", directory: `${path.join(root, "legacy-link")}/./` },
    });
    for (const directory of ["legacy", "legacy-link", path.join("legacy", "nested")]) {
      if (directory.endsWith("nested")) folder("legacy", "nested");
      const outcome = await register(ann, directory);
      expect(outcome.status, `${directory}: ${outcome.message}`).toBe(409);
      expect(outcome.message).toMatch(/^This folder cannot be used: it is inside, around or equal to a folder already registered/);
    }
  });
});
